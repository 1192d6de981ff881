{
  data: importstr '/etc/passwd',
}
