// A Node.js idempotency gate for the race probe's tests. Mode "racy" looks
// the key up, yields to the event loop (as a database round trip would),
// then claims it; mode "atomic" checks and claims in one synchronous step.
// GET /effects?key=K answers the bare count of K's claims. It prints the
// port it listens on, then serves until killed.
const http = require('http');

const mode = process.argv[2] || 'racy';
const claims = new Map();
let next = 0;

function claim(key) {
  claims.set(key, (claims.get(key) || 0) + 1);
  next += 1;
  return next;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/effects?')) {
    const key = new URL(req.url, 'http://gate').searchParams.get('key');
    res.end(String(claims.get(key) || 0));
    return;
  }
  const key = req.headers['idempotency-key'];
  if (!key) {
    res.writeHead(400);
    res.end('missing Idempotency-Key');
    return;
  }
  const answer = (ok) => {
    if (!ok) {
      res.writeHead(409);
      res.end('key already claimed');
      return;
    }
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: claim(key) }));
  };
  if (mode === 'atomic') {
    answer(!claims.has(key));
    return;
  }
  const seen = claims.has(key);
  setTimeout(() => answer(!seen), 1);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(server.address().port + '\n');
});
