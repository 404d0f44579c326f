// Charge routes on express, for the race probe's ground-truth suite. Each
// counts its own effect, one line per charge appended to a file (so that
// several processes count into one place), which GET /effects?key=K and
// GET /doubled report.
//
//   node gates.js prefork FILE      Node's cluster module with 2 workers,
//     each with its own in-memory store, as a server that preforks: the
//     first request with a key charges and stores its answer; a duplicate
//     while it works gets 409, one after it the stored answer marked
//     Idempotent-Replayed: true. A duplicate that lands on the other
//     worker charges again, unmarked (broken across workers).
//   node gates.js in-flight FILE    one process: a duplicate while the
//     first is at work gets 202 {"status":"processing"}, one after it the
//     stored answer marked Idempotent-Replayed: true (sound).
//   node gates.js effect-first FILE charges, works, then claims the key in
//     memory: a key already claimed answers 409, after the charge (broken,
//     even for a retry in sequence).
//
// It prints the port it listens on (127.0.0.1), then serves until killed.
const cluster = require('cluster');
const fs = require('fs');
const express = require('express');

const [mode, file] = process.argv.slice(2);
// The work of a charge, as an API call to a payment provider would take
// (GATE_WORK_MS, default 6).
const workMs = Number(process.env.GATE_WORK_MS || 6);
const workers = 2;

function charge(key) {
  fs.appendFileSync(file, key + '\n');
}

function counts() {
  const n = new Map();
  for (const k of fs.readFileSync(file, 'utf8').split('\n')) {
    if (k) n.set(k, (n.get(k) || 0) + 1);
  }
  return n;
}

function app() {
  const a = express();
  a.use(express.json());
  a.get('/effects', (req, res) => res.send(String(counts().get(req.query.key) || 0)));
  a.get('/doubled', (req, res) => res.send(String([...counts().values()].filter((c) => c > 1).length)));
  const store = new Map(); // key -> undefined while at work, then the stored answer
  a.post('/charges', (req, res) => {
    const key = req.get('Idempotency-Key') || '';
    if (mode === 'effect-first') {
      charge(key);
      setTimeout(() => {
        if (store.has(key)) return res.status(409).json({ error: 'key already used' });
        store.set(key, true);
        res.status(201).json({ status: 'charged' });
      }, workMs);
      return;
    }
    if (store.has(key)) {
      const stored = store.get(key);
      if (stored === undefined) {
        if (mode === 'in-flight') return res.status(202).json({ status: 'processing' });
        return res.status(409).json({ error: 'a request with this key is in flight' });
      }
      return res.status(stored.status).set('Idempotent-Replayed', 'true').json(stored.body);
    }
    store.set(key, undefined);
    setTimeout(() => {
      charge(key);
      const answer = { status: 201, body: { status: 'charged' } };
      store.set(key, answer);
      res.status(answer.status).json(answer.body);
    }, workMs);
  });
  return a;
}

if (!['prefork', 'in-flight', 'effect-first'].includes(mode) || !file) {
  process.stderr.write('usage: node gates.js prefork|in-flight|effect-first FILE\n');
  process.exit(2);
}
fs.writeFileSync(file, '', { flag: 'a' });
if (mode === 'prefork' && cluster.isPrimary) {
  // The workers share one listening socket: the primary hands each new
  // connection to the next worker in turn.
  const net = require('net');
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const port = probe.address().port;
    probe.close(() => {
      let up = 0;
      for (let i = 0; i < workers; i++) {
        cluster.fork({ GATE_PORT: String(port) }).on('listening', () => {
          up += 1;
          if (up === workers) process.stdout.write(port + '\n');
        });
      }
    });
  });
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers)) w.kill();
    process.exit(0);
  });
} else {
  const server = app().listen(Number(process.env.GATE_PORT || 0), '127.0.0.1', () => {
    if (mode !== 'prefork') process.stdout.write(server.address().port + '\n');
  });
}
