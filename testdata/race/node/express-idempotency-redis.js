// A charge route behind express-idempotency with its Redis adapter
// (express-idempotency-redis-adapter), set up as their READMEs say: the
// adapter connects to Redis, the middleware is installed with it, and the
// handler returns early when the service reports a hit. The handler counts
// its own effect per key, which GET /effects?key=K and GET /doubled
// report. It prints the port it listens on (127.0.0.1 only), then serves
// until killed.
//
// Every call to the adapter takes 5 ms more, as it would with Redis a
// network hop away; the library's logic is untouched. That puts at least
// 5 ms between the middleware's look-up of a key and its record of it.
const express = require('express');
const idempotency = require('express-idempotency');
const RedisAdapter = require('express-idempotency-redis-adapter').default;

const redisURL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const latencyMs = 5;
const windowMs = 6;

const adapter = new RedisAdapter({ connectionConfig: { url: redisURL }, ttl: 300 });
for (const method of ['findByIdempotencyKey', 'create', 'update', 'delete']) {
  const call = adapter[method].bind(adapter);
  adapter[method] = async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return call(...args);
  };
}

const effects = new Map();
const app = express();
app.use(express.json());
app.get('/effects', (req, res) => res.send(String(effects.get(req.query.key) || 0)));
app.get('/doubled', (req, res) => res.send(String([...effects.values()].filter((n) => n > 1).length)));
app.post('/charges', idempotency.idempotency({ dataAdapter: adapter }), (req, res) => {
  if (idempotency.getSharedIdempotencyService().isHit(req)) {
    return;
  }
  setTimeout(() => {
    const key = req.get('Idempotency-Key');
    effects.set(key, (effects.get(key) || 0) + 1);
    res.status(201).json({ status: 'charged' });
  }, windowMs);
});

adapter.connect().then(() => {
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(server.address().port + '\n');
  });
}).catch((err) => {
  process.stderr.write(`redis at ${redisURL}: ${err.message}\n`);
  process.exit(1);
});
