// Package pgcluster starts a throwaway PostgreSQL cluster: initdb in a
// temporary directory, the server on a free loopback port, nothing kept.
// --prove runs its witnesses on one (package prove), and the tests start one
// when no server is given (internal/testkit/pgtest).
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cluster is a throwaway PostgreSQL: initdb in a temporary directory,
// started by pg_ctl on a free loopback port, stopped and removed by Stop.
type Cluster struct {
	Dir, data, Bin string
	Port           int
	// cred runs the programs as an unprivileged user when idemcheck runs as
	// root, which initdb refuses.
	cred *syscall.Credential
	env  []string
	// watchdog is the pipe of StopWhenThisProcessExits.
	watchdog *os.File
}

// FindServerPrograms returns the directory holding initdb and pg_ctl:
// from PATH, else pg_config --bindir, else Debian's per-version
// directories (the target's major version first, then the newest). It
// also lists where it looked.
func FindServerPrograms(getenv func(string) string, debianRoot string, major int) (string, []string) {
	var looked []string
	if getenv == nil {
		getenv = os.Getenv
	}
	path := filepath.SplitList(getenv("PATH"))
	for _, dir := range path {
		if dir != "" && hasServerPrograms(dir) {
			return dir, looked
		}
	}
	looked = append(looked, "PATH")
	if cfgBin := lookIn(path, "pg_config"); cfgBin != "" {
		out, err := exec.Command(cfgBin, "--bindir").Output()
		if dir := strings.TrimSpace(string(out)); err == nil && hasServerPrograms(dir) {
			return dir, looked
		}
		looked = append(looked, "pg_config --bindir ("+strings.TrimSpace(string(out))+")")
	} else {
		looked = append(looked, "pg_config (not on PATH)")
	}
	if debianRoot != "" {
		entries, _ := os.ReadDir(debianRoot)
		var majors []int
		for _, e := range entries {
			if n, err := strconv.Atoi(e.Name()); err == nil && hasServerPrograms(filepath.Join(debianRoot, e.Name(), "bin")) {
				majors = append(majors, n)
			}
		}
		slices.SortFunc(majors, func(a, b int) int {
			switch {
			case a == major:
				return -1
			case b == major:
				return 1
			}
			return b - a
		})
		if len(majors) > 0 {
			return filepath.Join(debianRoot, strconv.Itoa(majors[0]), "bin"), looked
		}
		looked = append(looked, debianRoot+"/<N>/bin")
	}
	return "", looked
}

func hasServerPrograms(dir string) bool {
	for _, p := range []string{"initdb", "pg_ctl", "postgres"} {
		if !executable(filepath.Join(dir, p)) {
			return false
		}
	}
	return true
}

func lookIn(path []string, name string) string {
	for _, dir := range path {
		if p := filepath.Join(dir, name); dir != "" && executable(p) {
			return p
		}
	}
	return ""
}

func executable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// UnprivilegedUsers are the users a throwaway cluster runs as when
// idemcheck runs as root, in order of preference.
var UnprivilegedUsers = []string{"postgres", "nobody"}

// RunAs returns the credential for running the cluster's programs: none
// for an ordinary user, an unprivileged user's (and its name) for root,
// since initdb refuses to run as root. The error says none was found.
func RunAs() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		return nil, "", nil
	}
	for _, name := range UnprivilegedUsers {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, name, nil
	}
	return nil, "", fmt.Errorf("this runs as root, initdb refuses to run as root, and this machine has no "+
		"unprivileged user to run a throwaway cluster as (looked for %s)", strings.Join(UnprivilegedUsers, ", "))
}

// Start runs initdb in a new temporary directory and starts the
// server on a free loopback port, listening on no other address, its
// socket in that directory. Durability is off: the cluster lives for one
// run.
//
// settings are more server settings ("max_connections=100"), applied after
// the defaults, which they override.
func Start(ctx context.Context, bin string, cred *syscall.Credential, getenv func(string) string, settings ...string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "idemcheck-prove-")
	if err != nil {
		return nil, fmt.Errorf("a directory for the throwaway cluster: %v", err)
	}
	c := &Cluster{Dir: dir, data: filepath.Join(dir, "data"), Bin: bin, cred: cred}
	if getenv == nil {
		getenv = os.Getenv
	}
	c.env = []string{"PATH=" + getenv("PATH"), "LC_ALL=C", "LANG=C", "TZ=UTC", "HOME=" + dir}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("handing the cluster's directory to uid %d: %v", cred.Uid, err)
		}
	}
	if out, err := c.run(ctx, "initdb", "-D", c.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb failed: %v\n%s", err, tail(out))
	}
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			break
		}
		c.Port = port
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "+
			"-c full_page_writes=off -c max_connections=10 -c shared_buffers=16MB -c max_wal_senders=0 -c wal_level=minimal", port, dir)
		for _, set := range settings {
			opts += " -c " + set
		}
		out, err := c.run(ctx, "pg_ctl", "-D", c.data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			return c, nil
		}
		if attempt == 2 {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			c.Stop()
			return nil, fmt.Errorf("pg_ctl could not start the throwaway cluster: %v\n%s%s", err, tail(out), tail(log))
		}
	}
	c.Stop()
	return nil, fmt.Errorf("no free loopback port for the throwaway cluster")
}

// run runs one of the cluster's programs, as the unprivileged user when
// there is one.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, prog), args...)
	cmd.Env = c.env
	cmd.Dir = c.Dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// Stop stops the server at once (nothing in it is kept) and removes the
// directory.
func (c *Cluster) Stop() error {
	var errs []error
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		if out, err := c.run(context.Background(), "pg_ctl", "-D", c.data, "-m", "immediate", "-w", "-t", "30", "stop"); err != nil {
			errs = append(errs, fmt.Errorf("stopping the throwaway cluster: %v: %s", err, tail(out)))
			c.kill()
		}
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		errs = append(errs, fmt.Errorf("removing the throwaway cluster's directory: %v", err))
	}
	return errors.Join(errs...)
}

// kill ends the postmaster named in postmaster.pid when pg_ctl could not.
func (c *Cluster) kill() {
	data, err := os.ReadFile(filepath.Join(c.data, "postmaster.pid"))
	if err != nil {
		return
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last lines of a program's output, for an error.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, "\n")
}

// StopWhenThisProcessExits hands the cluster to a watchdog, a shell in a
// session of its own that waits on a pipe this process holds open: when
// this process ends, however it ends (a test binary has no exit hook, and
// may be killed), the pipe closes and the watchdog stops the server and
// removes its directory. Stop still works before that.
func (c *Cluster) StopWhenThisProcessExits() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	script := `read _; "$0" -D "$1" -m immediate -w -t 30 stop >/dev/null 2>&1; rm -rf "$2"`
	cmd := exec.Command("/bin/sh", "-c", script, filepath.Join(c.Bin, "pg_ctl"), c.data, c.Dir)
	cmd.Env = c.env
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if c.cred != nil {
		cmd.SysProcAttr.Credential = c.cred
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return fmt.Errorf("starting the throwaway cluster's watchdog: %v", err)
	}
	r.Close()
	// The write end must live as long as the process: a collected
	// *os.File closes its descriptor.
	watchdogs = append(watchdogs, w)
	c.watchdog = w
	go cmd.Wait()
	return nil
}

var watchdogs []*os.File

// ReleaseWatchdog closes the pipe StopWhenThisProcessExits holds, as the
// end of this process would: the watchdog stops and removes the cluster.
func (c *Cluster) ReleaseWatchdog() {
	if c.watchdog != nil {
		c.watchdog.Close()
		c.watchdog = nil
	}
}
