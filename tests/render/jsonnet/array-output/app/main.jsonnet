local cm(name) = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name } };
local enabled = false;
[
  cm('first'),
  [cm('nested-a'), [cm('deeper-b')]],
  if enabled then cm('disabled'),
  [],
  cm('last'),
]
