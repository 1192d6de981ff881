local base = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'base', labels: { a: '1' } },
  hidden:: 'not in the output',
  assert std.length(self.metadata.name) > 0 : 'names are required',
};
local derived = base {
  metadata+: { name: 'derived', labels+: { b: '2' } },
  hidden:: super.hidden + ', overridden',
  data: {
    joined: std.join(',', std.sort(['c', 'a', 'b'])),
    upper: std.asciiUpper('shout'),
    formatted: std.format('%05d|%-4s|%.2f', [42, 'ab', 3.14159]),
    b64: std.base64('weft'),
    md5: std.md5('weft'),
    json: std.manifestJsonEx({ b: [1, 2], a: null }, '  '),
    yaml: std.manifestYamlDoc({ key: ['x', 'y'], n: 1 }),
    parsed: std.toString(std.parseYaml('a: [1, 2]\nb: text')),
    merged: std.toString(std.mergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } })),
    comprehension: std.toString({ [k]: std.length(k) for k in ['one', 'three'] }),
    inherited: $.hidden,
    numbers: std.toString([std.floor(2.7), std.pow(2, 10), 7 % 3, 1 / 4]),
    split: std.toString(std.split('a/b/c', '/')),
    sets: std.toString(std.setUnion([1, 3], [2, 3])),
  },
};
[base, derived]
