local values = std.extVar('values');
{
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: values.name },
  spec: {
    replicas: values.replicas,
    template: { spec: { containers: [{ name: values.name, image: '%(repository)s:%(tag)s' % values.image }] } },
  },
}
