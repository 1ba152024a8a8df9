/**
 * One declaration per operation (src/api/operation.ts): the routes mounted from it parse the declared
 * input before the handler sees it, and the OpenAPI paths built from it state the same parameters,
 * body, answers and limits; named schemas are written once in components.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import { pathsOf, SchemaComponents } from '../../../src/api/openapi/from-operations';
import { mountOperations, operation, type OperationOf } from '../../../src/api/operation';
import { scanErrorHandler } from '../../../src/api/scan-errors';
import { int64 } from '../../../src/api/schema-kit';
import { request } from '../../support/http/http';

const Thing = z.object({ id: z.string(), size: int64('In bytes.') }).meta({ id: 'TestThing' });
const MAX_SIZE = 50;

interface Services {
  prefix: string;
}

const getThing = operation({
  method: 'get',
  path: '/v0/things/{thing_id}',
  summary: 'One thing.',
  request: {
    query: z.object({
      size: z
        .string()
        .regex(/^\d+$/, { error: 'expected digits' })
        .transform(Number)
        .refine((n) => n <= MAX_SIZE, { error: `expected at most ${MAX_SIZE}` })
        .optional()
        .meta({ type: 'integer', maximum: MAX_SIZE, default: 10, pattern: undefined }),
    }),
  },
  responses: { '200': { description: 'The thing.', body: Thing } },
  handle: ({ prefix }: Services, { params, query }, _req, res) => {
    res.json({ id: `${prefix}${params.thing_id}`, size: query.size ?? 10 } satisfies z.input<typeof Thing>);
  },
});

const putThing = operation({
  method: 'post',
  path: '/v0/things',
  summary: 'Store things.',
  deprecated: true,
  bearerAuth: true,
  request: { body: z.object({ things: z.array(Thing).min(1) }) },
  responses: { '200': { description: 'Stored.', body: z.object({ stored: int64() }) } },
  handle: (_services: Services, { body }, _req, res) => {
    res.json({ stored: body.things.length });
  },
});

const operations: readonly OperationOf<Services>[] = [getThing, putThing];

describe('declared operations', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use('/api', mountOperations(express.Router(), operations, { prefix: 'thing-' }));
    app.use(scanErrorHandler);
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('routes each operation with its parsed input and the services it was mounted with', async () => {
    const res = await request(url, 'GET', '/api/v0/things/7?size=12');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: 'thing-7', size: 12 });
    const posted = await request(url, 'POST', '/api/v0/things', { things: [{ id: 'a', size: 1 }] });
    expect(posted.status).toBe(200);
    expect(posted.json).toEqual({ stored: 1 });
  });

  it('answers 400 with the schema’s message before the handler runs', async () => {
    const res = await request(url, 'GET', '/api/v0/things/7?size=51');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "Invalid query field 'size': expected at most 50." });
    const empty = await request(url, 'POST', '/api/v0/things', { things: [] });
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ error: "Invalid body field 'things': Too small: expected array to have >=1 items." });
  });

  it('documents the same parameters, body, answers and limits, with named schemas in components', () => {
    const components = new SchemaComponents();
    const paths = pathsOf('/api', operations, components);
    expect(paths).toEqual({
      '/api/v0/things/{thing_id}': {
        get: {
          summary: 'One thing.',
          parameters: [
            { name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'size', in: 'query', required: false, schema: { type: 'integer', maximum: 50, default: 10 } },
          ],
          responses: {
            '200': {
              description: 'The thing.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/TestThing' } } },
            },
          },
        },
      },
      '/api/v0/things': {
        post: {
          summary: 'Store things.',
          deprecated: true,
          security: [{ bearerAuth: [] }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { things: { type: 'array', items: { $ref: '#/components/schemas/TestThing' }, minItems: 1 } },
                  required: ['things'],
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Stored.',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { stored: { type: 'integer', format: 'int64' } },
                    required: ['stored'],
                  },
                },
              },
            },
          },
        },
      },
    });
    expect(components.schemas).toEqual({
      TestThing: {
        type: 'object',
        properties: { id: { type: 'string' }, size: { type: 'integer', format: 'int64', description: 'In bytes.' } },
        required: ['id', 'size'],
      },
    });
  });

  it('refuses two different schemas under one name, and one operation declared twice', () => {
    const other = z.object({ name: z.string() }).meta({ id: 'TestThing' });
    const clash = operation({ ...getThing, path: '/v0/other', responses: { '200': { description: 'OK', body: other } } });
    expect(() => pathsOf('/api', [getThing, clash], new SchemaComponents())).toThrow('Two different schemas are named TestThing.');
    expect(() => pathsOf('/api', [getThing, getThing], new SchemaComponents())).toThrow('GET /api/v0/things/{thing_id} is declared twice.');
  });
});
