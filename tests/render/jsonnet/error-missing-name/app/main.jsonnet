[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: {} } }]
