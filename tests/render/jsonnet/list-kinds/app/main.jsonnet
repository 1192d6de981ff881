{
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
    { apiVersion: 'v1', kind: 'ConfigMapList', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } }] },
    { apiVersion: 'v1', kind: 'SecretList', items: null },
  ],
}
