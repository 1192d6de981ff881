{ web: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, replicas: 3 }
