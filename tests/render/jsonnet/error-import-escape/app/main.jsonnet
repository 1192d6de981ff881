local secret = import '../outside.libsonnet';
secret
