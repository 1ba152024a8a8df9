/**
 * The baseline of the read benchmark's throughput measures (bench/read-bench.ts):
 * a bare Express + pg server that looks a row up by primary key and sends its
 * text, as the API's S4, S5 and L1 send an update's stored JSON. Run as its
 * own process, like the API server:
 *
 *   DATABASE_URL=… PORT=… [HOST=127.0.0.1] [POOL_SIZE=10] node dist/bench/read-server.js
 *
 * GET  /rows/:id            the row's body (application/json), 404 when there is none
 * POST /rows  {"id": "…"}   the same, for a JSON request body as L1 has
 * GET  /livez               200
 *
 * The table is `read_baseline (id text primary key, body text)`, filled by the benchmark.
 */
import express, { type Response } from 'express';
import pg from 'pg';

export const BASELINE_TABLE = 'read_baseline';

/** The bench-only environment of this process (it is not the service's configuration). */
const env = process.env;

async function main(): Promise<void> {
  const connectionString = env.DATABASE_URL;
  if (!connectionString) throw new Error('DATABASE_URL is required');
  const pool = new pg.Pool({ connectionString, max: Number(env.POOL_SIZE ?? 10), application_name: 'readbench-baseline' });
  pool.on('error', () => undefined);
  const lookup = async (id: unknown, res: Response) => {
    if (typeof id !== 'string') {
      res.status(400).json({ error: 'id must be a string' });
      return;
    }
    const { rows } = await pool.query<{ body: string }>(`select body from ${BASELINE_TABLE} where id = $1`, [id]);
    if (rows.length === 0) res.status(404).json({ error: `no row ${id}` });
    else res.status(200).type('application/json; charset=utf-8').send(rows[0]!.body);
  };

  const app = express();
  app.disable('x-powered-by');
  // As the API server (src/api/app.ts): no ETag, whose hash of every body would cost the baseline alone.
  app.set('etag', false);
  app.get('/livez', (_req, res) => {
    res.status(200).send('ok');
  });
  app.get('/rows/:id', (req, res) => lookup(req.params.id, res));
  app.post('/rows', express.json({ limit: '1mb' }), (req, res) => lookup((req.body as { id?: unknown } | undefined)?.id, res));

  const server = app.listen(Number(env.PORT ?? 0), env.HOST ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  process.stdout.write(`listening on ${typeof address === 'object' && address ? address.port : String(address)}\n`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
