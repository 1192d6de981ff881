local common = import 'common.libsonnet';  // from jpath `shared`
local here = import 'prod.libsonnet';  // next to this file
common.namespace(here.namespace)
