local depth(n) = if n == 0 then 0 else 1 + depth(n - 1);
{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' + depth(50) } }
