local cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same' } };
{ a: cm, b: cm }
