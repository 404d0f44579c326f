package audit

// Rules is the registry of every rule, in the order `idemcheck rules` lists
// them.
var Rules = []*Rule{
	NullableKey,
	OptionalUnique,
	InvalidUniqueIndex,
	UnusedIgnore,
}
