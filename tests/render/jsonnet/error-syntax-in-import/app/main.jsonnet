(import 'broken.libsonnet').value
