local config = { replicas: 1 };
{
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'a' },
  spec: { image: config.image },
}
