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
 *
 * With FAIR=<file>, the fair baselines of S4, S5 and L1: the same rows read as the API reads them
 * (the statements of findTransactionById, findEvent and findStoredTransaction, on the service's
 * tables), and the same bytes sent as the API sent for that update in the same run (read from the
 * file, which the benchmark wrote): what a server does that stores each answer ready to send. What
 * the API does on top (inflating the stored payload, rendering, its middleware) is what they measure.
 *
 * GET  /fair/s4/:id                 as GET /api/scan/v2/updates/{id}
 * GET  /fair/s5/:id                 as GET /api/scan/v0/events/{id}
 * POST /fair/l1 {"updateId": "…"}   as POST /v2/updates/transaction-by-id
 *
 * The file: {"<update id>": {"s4": "<base64>", "s5": "<base64>", "l1": "<base64>", "migrationId": n, "contractIds": ["…"]}}.
 */
import fs from 'node:fs';
import express, { type Response } from 'express';
import pg from 'pg';

export const BASELINE_TABLE = 'read_baseline';

/** What the fair baselines send for an update, and what L1 looks up besides its row. */
export interface FairAnswers {
  s4: string;
  s5: string;
  l1: string;
  migrationId: number;
  contractIds: string[];
}

// The API's statements (src/store/update-repository.ts, src/store/ledger-repository.ts), as it sends them.
const UPDATE_COLUMNS = `u.update_id, u.migration_id, u.record_time, u.synchronizer_id, u.kind, u.external_transaction_hash,
  u.payload, u.payload_compact_length, u.json_compact, u.json_protobuf`;
const S4_SQL = `select ${UPDATE_COLUMNS} from updates u where u.update_id = $1 and u.kind = 'transaction'`;
const S5_SQL = `select u.update_id is not null as found_update, ${UPDATE_COLUMNS},
    coalesce(u.migration_id, v.migration_id) as event_migration_id,
    coalesce(u.record_time, v.record_time) as event_record_time,
    coalesce(u.synchronizer_id, v.domain_id) as event_synchronizer_id,
    v.json as verdict_json, t.json as traffic_json, a.json as activity_json
  from (select $1::text as update_id) k
  left join updates u on u.update_id = k.update_id and u.kind = 'transaction'
  left join verdicts v on v.update_id = k.update_id
  left join traffic_summaries t on t.migration_id = coalesce(u.migration_id, v.migration_id)
    and t.record_time = coalesce(u.record_time, v.record_time)
    and t.synchronizer_id = coalesce(u.synchronizer_id, v.domain_id) and t.update_id = k.update_id
  left join app_activity_records a on a.migration_id = coalesce(u.migration_id, v.migration_id)
    and a.record_time = coalesce(u.record_time, v.record_time)
    and a.synchronizer_id = coalesce(u.synchronizer_id, v.domain_id) and a.update_id = k.update_id`;
const L1_SQL = `select "updates"."migration_id", "updates"."ingest_seq", "updates"."command_id", "updates"."external_transaction_hash",
    "updates"."kind", "updates"."payload", "updates"."payload_compact_length", "updates"."json_compact", "updates"."json_protobuf",
    "verdicts"."submitting_parties"
  from "updates" left join "verdicts" on "verdicts"."update_id" = "updates"."update_id"
  where "updates"."update_id" = $1 and "updates"."kind" = $2`;
const L1_CONTRACTS_SQL = `select c.contract_id, c.signatories, c.observers, coalesce(b.blob, '') as created_event_blob
  from contracts c left join contract_blobs b on b.contract_id = c.contract_id
  where c.migration_id = $1 and c.contract_id = any($2::text[])`;

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

  if (env.FAIR) {
    const answers = new Map(
      Object.entries(JSON.parse(fs.readFileSync(env.FAIR, 'utf8')) as Record<string, FairAnswers>).map(([id, a]) => [
        id,
        { ...a, bytes: { s4: Buffer.from(a.s4, 'base64'), s5: Buffer.from(a.s5, 'base64'), l1: Buffer.from(a.l1, 'base64') } },
      ]),
    );
    const send = (res: Response, bytes: Buffer | undefined) => {
      if (bytes === undefined) res.status(404).json({ error: 'not in the sample' });
      else res.status(200).type('application/json; charset=utf-8').send(bytes);
    };
    app.get('/fair/s4/:id', async (req, res) => {
      await pool.query(S4_SQL, [req.params.id]);
      send(res, answers.get(req.params.id)?.bytes.s4);
    });
    app.get('/fair/s5/:id', async (req, res) => {
      await pool.query(S5_SQL, [req.params.id]);
      send(res, answers.get(req.params.id)?.bytes.s5);
    });
    app.post('/fair/l1', express.json({ limit: '1mb' }), async (req, res) => {
      const id = String((req.body as { updateId?: unknown } | undefined)?.updateId);
      const answer = answers.get(id);
      await pool.query(L1_SQL, [id, 'transaction']);
      if (answer && answer.contractIds.length > 0) await pool.query(L1_CONTRACTS_SQL, [answer.migrationId, answer.contractIds]);
      send(res, answer?.bytes.l1);
    });
  }

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
