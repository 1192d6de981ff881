(import 'settings.libsonnet') { port: 8080 }
