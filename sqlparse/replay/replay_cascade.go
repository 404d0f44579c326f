package replay

// dropDomainColumns handles the columns typed with a domain that DROP DOMAIN
// removes: with CASCADE PostgreSQL drops them, and with them every index and
// CHECK that uses them, which is how a unique index can disappear without
// being named. Without CASCADE the server refuses (2BP01) and the domain
// stays. It reports whether the domain may go.
func (r *Replayer) dropDomainColumns(schema, name string, cascade bool) bool {
	d := r.cat.ResolveDomain(schema, name)
	if d == nil {
		return true
	}
	for _, t := range r.cat.Tables() {
		for _, c := range append(t.Columns[:0:0], t.Columns...) {
			if t.Column(c.Name) == nil || r.domainOf(c) != d {
				continue
			}
			if !cascade {
				r.note("2BP01", "cannot drop type %s because column %s of table %s depends on it", d.Name, c.Name, t.Name)
				return false
			}
			r.dropColumn(t, c.Name, true, true, true)
		}
	}
	return true
}
