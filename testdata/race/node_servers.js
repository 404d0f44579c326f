// Node.js servers for the race probe's --sync auto tests, each as Node
// serves by default: "h1" (http), "h2c" (http2, cleartext), "h2tls" (http2
// over TLS with allowHTTP1; the key and certificate files follow). Every
// route answers 200 "ok". It prints the port it listens on, then serves
// until killed.
const fs = require('fs');
const http = require('http');
const http2 = require('http2');

const [kind, keyFile, certFile] = process.argv.slice(2);
const handler = (req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('ok');
};
let server;
if (kind === 'h1') {
  server = http.createServer(handler);
} else if (kind === 'h2c') {
  server = http2.createServer(handler);
} else if (kind === 'h2tls') {
  server = http2.createSecureServer(
    { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), allowHTTP1: true }, handler);
} else {
  process.stderr.write('want h1, h2c or h2tls\n');
  process.exit(2);
}
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(server.address().port + '\n');
});
