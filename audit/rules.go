package audit

// Rules is the registry of every rule, in the order `idemcheck rules` lists
// them.
var Rules = []*Rule{
	NullableKey,
	OptionalUnique,
	NotNullDropped,
	UniqueDropped,
	DeferrableUnique,
	NNDUnsupported,
	InvalidUniqueIndex,
	PartitionLocalUnique,
	OnConflictHole,
	KeyWithoutUnique,
	IdempotencyTableShape,
	UnusedIgnore,
}
