// Command idemcheck audits idempotency constraints: it finds unique indexes
// that do not stop duplicates (lint, inspect) and races identical requests at
// a running system to prove whether its gate holds (race).
package main

import (
	"os"

	"github.com/idemcheck/idemcheck/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
