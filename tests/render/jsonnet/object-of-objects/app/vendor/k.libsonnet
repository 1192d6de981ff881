// A small helper library, as vendored from a jsonnet-bundler package.
{
  deployment(name, image, replicas=1, labels={}):: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: name, labels: { app: name } + labels },
    spec: {
      replicas: replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: name, image: image }] },
      },
    },
  },
  service(name, port):: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: name },
    spec: { selector: { app: name }, ports: [{ port: port, targetPort: port }] },
  },
  configMap(name, data):: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: name },
    data: data,
  },
}
