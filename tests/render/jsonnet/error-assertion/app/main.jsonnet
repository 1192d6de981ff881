local port = 70000;
assert port < 65536 : 'port out of range: %d' % port;
{ kind: 'X' }
