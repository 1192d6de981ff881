local loop(n) = loop(n + 1) + 1;
{ kind: loop(0) }
