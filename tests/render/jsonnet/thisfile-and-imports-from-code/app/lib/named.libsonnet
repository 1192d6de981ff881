function(suffix) { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'named-' + suffix }, data: { file: std.thisFile, fromCode: std.extVar('fromCode') } }
