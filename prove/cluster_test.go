package prove

import (
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/pgcluster"
)

// TestRootWithoutAnUnprivilegedUser: as root, with no user to run initdb
// as, --prove says exactly why it cannot start a cluster and what to give
// instead.
func TestRootWithoutAnUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root needs another user to run initdb as")
	}
	saved := pgcluster.UnprivilegedUsers
	pgcluster.UnprivilegedUsers = []string{"idemcheck-no-such-user"}
	defer func() { pgcluster.UnprivilegedUsers = saved }()
	_, _, err := runAs()
	if err == nil {
		t.Fatal("root with no unprivileged user: no error")
	}
	for _, want := range []string{"idemcheck runs as root, initdb refuses to run as root", "idemcheck-no-such-user", "give --scratch-dsn"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
