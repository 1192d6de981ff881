local k = import 'k.libsonnet';  // lib/k.libsonnet shadows vendor/k.libsonnet
local vendored = import 'vendor/k.libsonnet';
local app = import 'app.libsonnet';  // lib/app.libsonnet, which imports its neighbour
[
  k.deployment(app.name, app.image),
  vendored.service(app.name, app.port),
  k.configMap(app.name + '-files', {
    'nginx.conf': importstr 'files/nginx.conf',
    size: std.toString(std.length(importbin 'files/nginx.conf')),
  }),
]
