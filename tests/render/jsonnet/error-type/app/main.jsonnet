{
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'n' + 1 - 1 },
}
