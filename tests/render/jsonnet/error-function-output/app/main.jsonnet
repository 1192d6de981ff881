{ kind: 'X', f: function(x) x }
