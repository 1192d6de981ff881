std.extVar('x')
