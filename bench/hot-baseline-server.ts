/**
 * The baseline of the hot-answers benchmark (bench/hot-answers-bench.ts): a bare Express server that
 * answers each route with fixed bytes (those the API served for it in the same run), with the
 * settings of the API server (no ETag, no X-Powered-By), and nothing else: no database, no
 * middleware but the JSON body parser on POST routes, since a server must read a request's body.
 * Run as its own process, like the API server:
 *
 *   ROUTES=<file> PORT=… [HOST=127.0.0.1] node dist/bench/hot-baseline-server.js
 *
 * ROUTES is a JSON file: [{"method": "GET" | "POST", "path": "…", "body": "<base64 of the answer>"}].
 * GET /livez answers 200.
 */
import fs from 'node:fs';
import express from 'express';

export interface BaselineRoute {
  method: 'GET' | 'POST';
  path: string;
  /** Base64 of the bytes to send. */
  body: string;
}

/** The bench-only environment of this process (it is not the service's configuration). */
const env = process.env;

async function main(): Promise<void> {
  if (!env.ROUTES) throw new Error('ROUTES is required');
  const routes = JSON.parse(fs.readFileSync(env.ROUTES, 'utf8')) as BaselineRoute[];
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/livez', (_req, res) => {
    res.status(200).send('ok');
  });
  for (const route of routes) {
    const bytes = Buffer.from(route.body, 'base64');
    const send: express.RequestHandler = (_req, res) => {
      res.status(200).type('application/json; charset=utf-8').send(bytes);
    };
    if (route.method === 'POST') app.post(route.path, express.json({ limit: '1mb' }), send);
    else app.get(route.path, send);
  }
  const server = app.listen(Number(env.PORT ?? 0), env.HOST ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
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
