{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plain' } }
