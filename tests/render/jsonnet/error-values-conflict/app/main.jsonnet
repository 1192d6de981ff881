std.extVar('values')
