// The Express app of the real-server bench (go run ./bench/race -tables
// real): express and pg from npm, installed into a cache directory outside
// the repository (NODE_PATH). POST /claims reads the body, looks the key up
// and inserts a charge when it is absent: a read-then-insert with no unique
// constraint. GET /effects?key=K is the bench's count. Usage: node app.js
// PORT, with DATABASE_URL naming the database.
'use strict';
const express = require('express');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL });
const app = express();
app.use(express.text({ type: () => true }));

app.post('/claims', async (req, res) => {
  const key = req.get('Idempotency-Key');
  if (!key) return res.status(400).json({ error: 'missing Idempotency-Key' });
  try {
    const seen = await pool.query('SELECT id FROM express_charges WHERE idempotency_key = $1', [key]);
    if (seen.rowCount > 0) return res.status(409).json({ error: 'key already used' });
    const made = await pool.query('INSERT INTO express_charges (idempotency_key) VALUES ($1) RETURNING id', [key]);
    res.status(201).json({ status: 'charged', id: made.rows[0].id });
  } catch (err) {
    res.status(500).json({ error: err.message });
  }
});

app.get('/effects', async (req, res) => {
  const r = await pool.query('SELECT count(*) AS n FROM express_charges WHERE idempotency_key = $1', [String(req.query.key || '')]);
  res.type('text/plain').send(`${r.rows[0].n}\n`);
});

pool.query('CREATE TABLE IF NOT EXISTS express_charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL)')
  .then(() => app.listen(Number(process.argv[2]), '127.0.0.1'))
  .catch((err) => { console.error(err.message); process.exit(1); });
