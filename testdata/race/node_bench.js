// A Node.js read-then-write target for the race benchmark (bench/race). It
// reads the whole body, notes when its last byte was read (Server-Timing:
// arrival;dur=<ms since the Unix epoch>), looks the key up, yields to the
// event loop for the window (as an awaited database call would: other
// requests run meanwhile), then records the effect. GET /effects?key=K
// answers the bare count of K's effects. Arguments: the window in
// microseconds, then "h1" (http), "h2c" (http2, cleartext) or "both" (an
// http and an http2 cleartext server sharing the effects). It prints the
// port it listens on ("both": the HTTP/1.1 port, a space, the HTTP/2 port),
// then serves until killed.
const http = require('http');
const http2 = require('http2');
const { performance } = require('perf_hooks');

const windowUs = Number(process.argv[2] || '0');
const kind = process.argv[3] || 'h1';
const effects = new Map();

function now() {
  return performance.timeOrigin + performance.now();
}

// yieldFor lets the event loop run for at least us microseconds.
function yieldFor(us, done) {
  const start = process.hrtime.bigint();
  const again = () => {
    if (Number(process.hrtime.bigint() - start) / 1000 >= us) {
      done();
      return;
    }
    setImmediate(again);
  };
  setImmediate(again);
}

function handler(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const arrival = now();
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/effects') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(String(effects.get(url.searchParams.get('key')) || 0) + '\n');
      return;
    }
    res.setHeader('Server-Timing', 'arrival;dur=' + arrival.toFixed(3));
    const key = req.headers['idempotency-key'];
    if (!key) {
      res.writeHead(400);
      res.end('missing Idempotency-Key');
      return;
    }
    if (effects.get(key)) {
      res.writeHead(409);
      res.end('key already claimed');
      return;
    }
    yieldFor(windowUs, () => {
      effects.set(key, (effects.get(key) || 0) + 1);
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ claimed: key }));
    });
  });
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const servers = kind === 'both' ? [http.createServer(handler), http2.createServer(handler)]
  : [kind === 'h2c' ? http2.createServer(handler) : http.createServer(handler)];
Promise.all(servers.map(listen)).then((ports) => process.stdout.write(ports.join(' ') + '\n'));
