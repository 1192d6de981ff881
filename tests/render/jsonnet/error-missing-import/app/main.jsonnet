local a = 1;
local missing = import 'missing.libsonnet';
missing.x
