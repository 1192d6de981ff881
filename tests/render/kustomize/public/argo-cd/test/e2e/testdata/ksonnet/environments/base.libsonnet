local components = std.extVar("__ksonnet/components");
components + {
  // Insert user-specified overrides here.
}
