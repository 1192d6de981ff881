{
  name(n)::
    if n == 'x' then error 'names may not be x: ' + n
    else n,
}
