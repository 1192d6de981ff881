{
    name: 'hello-world',
    rootname: 'hello-root',
}