// The app's own library wraps the vendored one and adds a label.
local upstream = import 'vendor/k.libsonnet';
upstream {
  deployment(name, image, replicas=1, labels={}):: super.deployment(name, image, replicas, labels { team: 'web' }),
}
