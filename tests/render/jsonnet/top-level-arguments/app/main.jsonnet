function(name, replicas=1, ports=[80], namespace='default') {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: name, namespace: namespace },
  spec: {
    replicas: replicas,
    template: { spec: { containers: [{ name: name, ports: [{ containerPort: p } for p in ports] }] } },
  },
}
