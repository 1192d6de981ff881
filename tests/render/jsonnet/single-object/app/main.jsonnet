{
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'single', labels: { tier: 'backend' } },
  data: {
    greeting: 'hello %s' % 'world',
    count: std.toString(1 + 2),
  },
}
