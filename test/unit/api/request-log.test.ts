/**
 * The request log (src/api/request-log.ts) writes the lines pino-http writes with the options the
 * API used it with: the same requests through two real Express servers, one with each, give the
 * same lines (but for the time, the response time and the ports), at info and at warn.
 * Also: the same security headers as helmet (src/api/security-headers.ts).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { createLogger } from '../../../src/internal/logger';
import { requestLog } from '../../../src/api/request-log';
import { securityHeaders } from '../../../src/api/security-headers';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** pino-http as src/api/app.ts configured it before it was replaced. */
function pinoHttpAsBefore(logger: ReturnType<typeof createLogger>): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/livez' || req.url === '/readyz' || req.url === '/metrics' },
  });
}

async function serve(level: string, middleware: (logger: ReturnType<typeof createLogger>) => RequestHandler) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger(level, 'scan-indexer', sink);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(middleware(logger));
  const router = express.Router();
  router.get('/items/:id', (req, res) => {
    req.log.info({ item: req.params.id }, 'looked up');
    res.json({ id: req.params.id });
  });
  router.get('/broken', (req, res) => {
    req.log.error({ why: 'test' }, 'unexpected error');
    res.status(500).json({ error: 'broken' });
  });
  router.post('/refused', (req, res) => {
    req.log.warn({ status: 403 }, 'refused');
    res.status(403).json({ error: 'refused' });
  });
  app.use('/api', router);
  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

const REQUESTS: [string, string, Record<string, string>][] = [
  ['GET', '/api/items/a1?verbose=true&x=1', { 'x-request-id': 'req-1' }],
  ['GET', '/api/broken', { 'x-request-id': 'req-2' }],
  ['POST', '/api/refused', { 'x-request-id': 'req-3', 'content-type': 'application/json' }],
  ['GET', '/livez', { 'x-request-id': 'req-4' }],
  ['GET', '/nowhere', { 'x-request-id': 'req-5', authorization: 'Bearer secret', cookie: 'a=b' }],
];

/** A line without what differs between two runs: the time, the response time and the ports. */
function comparable(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, responseTime: _responseTime, ...rest } = line;
  const req = rest.req as { remotePort?: unknown; headers?: Record<string, unknown> } | undefined;
  if (req) rest.req = { ...req, remotePort: typeof req.remotePort, headers: { ...req.headers, host: typeof req.headers?.host } };
  const res = rest.res as { headers?: Record<string, unknown> } | undefined;
  if (res?.headers) rest.res = { ...res, headers: { ...res.headers, date: typeof res.headers.date } };
  const err = rest.err as { stack?: unknown } | undefined;
  if (err) rest.err = { ...err, stack: typeof err.stack };
  return rest;
}

describe('request log', () => {
  it.each(['info', 'warn'])('writes the lines pino-http wrote, at %s', async (level) => {
    const logged: Record<string, unknown>[][] = [];
    for (const middleware of [pinoHttpAsBefore, requestLog]) {
      const server = await serve(level, middleware);
      try {
        for (const [method, path, headers] of REQUESTS) {
          const res = await fetch(`${server.url}${path}`, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) });
          await res.text();
          expect(res.headers.get('x-request-id')).toBe(headers['x-request-id']);
        }
        // A response's line is written once the server has finished it, which may come after the client has the answer.
        const expected = level === 'info' ? 7 : 3;
        for (let waited = 0; server.lines.length < expected && waited < 5000; waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10));
        logged.push(server.lines.map(comparable));
      } finally {
        await server.close();
      }
    }
    expect(logged[0]!.length).toBe(level === 'info' ? 7 : 3);
    expect(logged[1]).toEqual(logged[0]);
    // Member for member, in the same order.
    expect(JSON.stringify(logged[1])).toBe(JSON.stringify(logged[0]));
  });

  it('gives a request without a usable id a new one', async () => {
    const server = await serve('silent', requestLog);
    try {
      const res = await fetch(`${server.url}/livez`, { headers: { 'x-request-id': 'no spaces allowed' } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await server.close();
    }
  });
});

describe('security headers', () => {
  it('are the headers helmet set, in its order', async () => {
    const headersOf = async (middleware: RequestHandler) => {
      const app = express();
      app.use(middleware);
      app.get('/', (_req, res) => {
        res.json({});
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        return [...res.headers.entries()].filter(([name]) => name !== 'date');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    };
    const expected = await headersOf(
      helmet({
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
        frameguard: { action: 'deny' },
        crossOriginResourcePolicy: { policy: 'cross-origin' },
      }),
    );
    expect(expected.map(([name]) => name)).toContain('content-security-policy');
    expect(await headersOf(securityHeaders())).toEqual(expected);
  });
});
