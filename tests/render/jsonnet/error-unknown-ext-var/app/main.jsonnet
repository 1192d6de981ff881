{
  kind: std.extVar('cluster'),
}
