{
  a: undefinedThing,
}
