local k = import 'k.libsonnet';
{
  frontend: {
    deployment: k.deployment('frontend', 'nginx:1.27', replicas=2),
    service: k.service('frontend', 80),
  },
  backend: {
    deployment: k.deployment('backend', 'api:2.1'),
    config: k.configMap('backend-config', { LOG_LEVEL: 'debug' }),
  },
  optional: null,
  empty: {},
}
