// Package nginxtest runs Debian's nginx as a child process in front of an
// HTTP/1.1 upstream: HTTP/2 and HTTP/1.1 over TLS (ALPN) with a
// self-signed certificate for 127.0.0.1, on a free loopback port, from a
// configuration and certificate written to a directory of the caller's.
// The race tests and bench/race use it; it never touches a system nginx
// service or its configuration.
package nginxtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrNotInstalled is returned when no nginx binary is found.
var ErrNotInstalled = errors.New("nginx is not installed (Debian: apt-get install nginx-light)")

// Server is a running nginx.
type Server struct {
	// URL is https://127.0.0.1:PORT, without a path.
	URL    string
	cmd    *exec.Cmd
	exited chan error
}

// Close stops nginx: SIGTERM is its fast shutdown, which stops the
// workers too; a kill follows when it takes longer than 3 seconds.
func (s *Server) Close() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}

// binary finds nginx on PATH or where Debian installs it.
func binary() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", ErrNotInstalled
}

// Start runs nginx with its files in dir (which must exist and which the
// caller removes), proxying every request to upstream (host:port, plain
// HTTP/1.1 with keep-alive connections).
func Start(dir, upstream string) (*Server, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	if err := SelfSigned(dir); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(config(dir, port, upstream)), 0o600); err != nil {
		return nil, err
	}
	// nginx's messages go to a file: its workers inherit stderr, and a
	// pipe would keep Wait waiting for them.
	logName := filepath.Join(dir, "error.log")
	logFile, err := os.Create(logName)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", "stderr")
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close can end the workers with it
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stderr := func() string { b, _ := os.ReadFile(logName); return strings.TrimSpace(string(b)) }
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s := &Server{URL: fmt.Sprintf("https://127.0.0.1:%d", port), cmd: cmd, exited: exited}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("nginx exited: %v: %s", err, stderr())
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	return nil, fmt.Errorf("nginx did not listen on port %d within 10s: %s", port, stderr())
}

// config is a minimal nginx.conf: in the foreground, every path under dir,
// TLS with HTTP/2 (nginx 1.22 spells it on the listen directive), no
// access log, the upstream over HTTP/1.1 with keep-alive.
func config(dir string, port int, upstream string) string {
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // workers read the files in dir
	}
	return fmt.Sprintf(`%sdaemon off;
worker_processes auto;
pid %[2]s/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    upstream target { server %[3]s; keepalive 64; }
    server {
        listen 127.0.0.1:%[4]d ssl http2;
        ssl_certificate %[2]s/cert.pem;
        ssl_certificate_key %[2]s/key.pem;
        location / {
            proxy_pass http://target;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`, user, dir, upstream, port)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// SelfSigned writes key.pem (ECDSA P-256) and cert.pem, a self-signed
// certificate for 127.0.0.1, into dir: what nginx serves here, and what
// any other loopback TLS target of the tests can serve too.
func SelfSigned(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	for name, b := range map[string]*pem.Block{"key.pem": {Type: "EC PRIVATE KEY", Bytes: kder}, "cert.pem": {Type: "CERTIFICATE", Bytes: der}} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(b), 0o600); err != nil {
			return err
		}
	}
	return nil
}
