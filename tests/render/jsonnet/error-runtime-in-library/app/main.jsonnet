local helpers = import 'helpers.libsonnet';
{
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: helpers.name('x') },
}
