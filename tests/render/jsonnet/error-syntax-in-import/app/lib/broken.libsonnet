{
  value: [1, 2
  other: 3,
}
