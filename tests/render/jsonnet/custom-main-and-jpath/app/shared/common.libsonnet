{ namespace(name):: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: name, labels: { file: std.thisFile } } } }
