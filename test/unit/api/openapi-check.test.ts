/**
 * The check of answers against the OpenAPI document (test/support/http/openapi-check.ts), on a
 * hand-made document: a matching answer passes, a deliberate mismatch fails with the operation, the
 * status, what does not match and the body; and the served document itself compiles.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApiDocument } from '../../../src/api/openapi/document';
import { request } from '../../support/http/http';
import {
  checkServedDocument,
  responseChecker,
  ResponseMismatch,
  type Answer,
  type OpenApiDocument,
} from '../../support/http/openapi-check';

const document = {
  openapi: '3.1.0',
  paths: {
    '/v0/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { description: 'Not found (empty body).' },
          '4XX': { description: 'A client mistake.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '431': { $ref: '#/components/responses/TooLarge' },
        },
      },
    },
    '/v0/things/count': {
      get: {
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { type: 'object', properties: { count: { type: 'integer', format: 'int32' } } } } },
          },
        },
      },
    },
    '/metrics': { get: { responses: { '200': { description: 'Text.', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'string' }, size: { type: 'integer', format: 'int64' }, at: { type: 'string', format: 'date-time' } },
        required: ['id', 'size'],
      },
      Error: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
    },
    responses: {
      TooLarge: {
        description: 'The URL is too long.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  },
};

const check = responseChecker(document);
const json = (method: string, path: string, status: number, body: unknown): Answer => ({
  method,
  path,
  status,
  contentType: 'application/json; charset=utf-8',
  text: JSON.stringify(body),
});

describe('the check of answers against the OpenAPI document', () => {
  it('passes an answer its operation and status describe, path parameters and query included', () => {
    expect(() => check(json('GET', '/v0/things/abc?x=1', 200, { id: 'abc', size: 3, at: '2025-01-01T00:00:00Z' }))).not.toThrow();
    expect(() => check(json('GET', '/v0/things/count', 200, { count: 3 }))).not.toThrow();
    // 400 through 4XX; 404 declares no body, and an empty one is not JSON.
    expect(() => check(json('GET', '/v0/things/abc', 400, { error: 'bad id' }))).not.toThrow();
    expect(() => check({ method: 'GET', path: '/v0/things/abc', status: 404, contentType: null, text: '' })).not.toThrow();
    expect(() => check({ method: 'GET', path: '/metrics', status: 200, contentType: 'text/plain', text: 'up 1' })).not.toThrow();
    // A response of components.responses.
    expect(() => check(json('GET', '/v0/things/abc', 431, { error: 'too long' }))).not.toThrow();
    expect(() => check(json('GET', '/v0/things/abc', 431, { message: 'too long' }))).toThrow(
      /status 431: the body does not match its schema: \(the body\) must have required property 'error'/,
    );
  });

  it('fails a body of the wrong type, naming the operation, the status, the error and the body', () => {
    const answer = json('GET', '/v0/things/abc', 200, { id: 'abc', size: '3' });
    expect(() => check(answer)).toThrow(ResponseMismatch);
    expect(() => check(answer)).toThrow(
      /GET \/v0\/things\/\{id\}, status 200: the body does not match its schema: \/size must be integer.*\nbody \(\d+ characters\): \{"id":"abc","size":"3"\}/s,
    );
  });

  it('fails formats, missing properties, and integers out of int32', () => {
    expect(() => check(json('GET', '/v0/things/abc', 200, { id: 'abc', size: 3, at: 'yesterday' }))).toThrow(
      /\/at must match format "date-time"/,
    );
    expect(() => check(json('GET', '/v0/things/abc', 200, { id: 'abc' }))).toThrow(/must have required property 'size'/);
    expect(() => check(json('GET', '/v0/things/count', 200, { count: 2 ** 31 }))).toThrow(/\/count must match format "int32"/);
  });

  it('takes a literal path before a template', () => {
    expect(() => check(json('GET', '/v0/things/count', 200, { count: 1 }))).not.toThrow();
    expect(() => check(json('GET', '/v0/things/count', 200, { count: 'many' }))).toThrow(/GET \/v0\/things\/count, status 200/);
  });

  it('fails a status the operation does not declare, and a JSON body where it declares none', () => {
    expect(() => check(json('GET', '/v0/things/count', 500, { error: 'boom' }))).toThrow(
      /operation GET \/v0\/things\/count, status 500: the document declares no response with this status \(it declares 200\)/,
    );
    expect(() => check(json('GET', '/v0/things/abc', 404, { error: 'gone' }))).toThrow(
      /a JSON body .* where the document declares no body/,
    );
    expect(() => check(json('GET', '/metrics', 200, { up: 1 }))).toThrow(/where the document declares text\/plain/);
  });

  it('leaves alone what the document does not list, and bodies that are not JSON', () => {
    expect(() => check(json('GET', '/ui/app.js', 200, 'anything'))).not.toThrow();
    expect(() => check(json('DELETE', '/v0/things/abc', 404, { error: 'no such route' }))).not.toThrow();
    expect(() => check({ method: 'GET', path: '/v0/things/abc', status: 200, contentType: 'text/html', text: '<p>' })).not.toThrow();
  });

  it('compiles every response schema of the document the server serves', () => {
    expect(() => checkServedDocument(json('GET', '/livez', 200, { status: 'ok' }))).not.toThrow();
    expect(() => checkServedDocument(json('GET', '/livez', 200, { status: 1 }))).toThrow(ResponseMismatch);
    const served = openApiDocument('test') as unknown as OpenApiDocument;
    const notCompiled: string[] = [];
    for (const [path, operations] of Object.entries(served.paths))
      for (const [method, operation] of Object.entries(operations))
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if ((!response.content?.['application/json'] && !response.$ref) || !/^\d+$/.test(status)) continue;
          // A path with its parameters filled in; whatever the body, the check answers or names a mismatch.
          const filled = path.replace(/\{[^}]+\}/g, 'x');
          try {
            checkServedDocument(json(method, filled, Number(status), null));
          } catch (err) {
            if (!(err instanceof ResponseMismatch)) notCompiled.push(`${method} ${path} ${status}: ${String(err)}`);
          }
        }
    expect(notCompiled).toEqual([]);
  });

  it("checks request()'s answers from a server that serves a scan-indexer document, and not those of one that serves none", async () => {
    const served = { ...document, info: { title: 'scan-indexer', version: 'test' } };
    const serve = (withDocument: boolean) =>
      new Promise<http.Server>((resolve) => {
        const server = http.createServer((req, res) => {
          if (req.url === '/docs/openapi.json' && withDocument)
            res.setHeader('content-type', 'application/json').end(JSON.stringify(served));
          else if (req.url === '/docs/openapi.json') res.writeHead(404).end();
          else res.setHeader('content-type', 'application/json').end(JSON.stringify({ id: 'abc', size: 'large' }));
        });
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    const ours = await serve(true);
    const fake = await serve(false);
    const url = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    try {
      await expect(request(url(ours), 'GET', '/v0/things/abc')).rejects.toThrow(
        /status 200: the body does not match its schema: \/size must be integer/,
      );
      await expect(request(url(fake), 'GET', '/v0/things/abc')).resolves.toMatchObject({ status: 200, json: { size: 'large' } });
    } finally {
      ours.close();
      fake.close();
    }
  });
});
