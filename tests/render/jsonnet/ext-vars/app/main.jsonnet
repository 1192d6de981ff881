local env = std.extVar('env');
local replicas = std.extVar('replicas');
{
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web-' + env, labels: std.extVar('labels') },
  spec: { replicas: replicas, paused: std.extVar('paused') },
}
