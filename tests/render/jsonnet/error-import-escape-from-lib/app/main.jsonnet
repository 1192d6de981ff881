import 'sneaky.libsonnet'
