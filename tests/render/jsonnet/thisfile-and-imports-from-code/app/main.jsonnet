(import 'lib/named.libsonnet')(std.extVar('suffix'))
