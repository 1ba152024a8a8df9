/**
 * The served OpenAPI document and the Express routes describe the same set of
 * operations, so the document cannot drift from the code unnoticed.
 */
import type { Express } from 'express';
import { HEAVY_REQUEST_BOUND } from '../../src/api/fair-access/heavy-requests';
import { EXPENSIVE_OPERATIONS } from '../../src/api/openapi/fair-access';
import { useTestDatabase } from '../support/database/database';
import { request, startTestApi, type TestApi } from '../support/http/http';

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean>; stack: { handle: object }[] };
  handle?: { stack?: Layer[] };
}

/**
 * Every `METHOD /path` the app routes, with Express `:param`s written as OpenAPI `{param}`; with
 * `onlyBounded`, those behind the bound on expensive requests.
 */
function routedOperations(app: Express, onlyBounded = false): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route && typeof layer.route.path === 'string') {
        const path = `${prefix}${layer.route.path}`.replace(/:([A-Za-z_]+)/g, '{$1}');
        if (onlyBounded && !layer.route.stack.some((l) => HEAVY_REQUEST_BOUND in l.handle)) continue;
        for (const [method, on] of Object.entries(layer.route.methods))
          if (on && method !== '_all') found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' ? layer.rawPath.replace(/\/$/, '') : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(found)].sort();
}

describe('OpenAPI document', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('is served and lists exactly the routed operations', async () => {
    const res = await request(api.url, 'GET', '/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = res.json as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(routedOperations(api.app));
  });

  it('lists 429 with Retry-After on every rate-limited operation, and 503 on those behind the bound on expensive requests', async () => {
    const res = await request(api.url, 'GET', '/docs/openapi.json');
    const doc = res.json as { paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>> };
    const limited = /^\/(api\/scan|api\/validator|registry|api\/indexer|v2)\//;
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, responses: op.responses })),
    );
    const health = /\/(livez|readyz)$/;
    const withoutRetryAfter = (status: string) =>
      operations.filter((o) => o.responses[status] !== undefined && !('Retry-After' in (o.responses[status].headers ?? {})));
    expect(operations.filter((o) => limited.test(o.path) && !health.test(o.path) && !o.responses['429']).map((o) => o.name)).toEqual([]);
    expect(operations.filter((o) => (!limited.test(o.path) || health.test(o.path)) && o.responses['429']).map((o) => o.name)).toEqual([]);
    expect(withoutRetryAfter('429').map((o) => o.name)).toEqual([]);
    const bounded = routedOperations(api.app, true);
    expect(bounded).toEqual([...EXPENSIVE_OPERATIONS].sort());
    expect(
      operations
        .filter((o) => o.responses['503']?.headers !== undefined)
        .map((o) => o.name)
        .sort(),
    ).toEqual(bounded);
  });

  it('has no dangling schema references', async () => {
    const res = await request(api.url, 'GET', '/docs/openapi.json');
    const refs = [...res.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    const schemas = Object.keys((res.json as { components: { schemas: Record<string, unknown> } }).components.schemas);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !schemas.includes(r!))).toEqual([]);
  });
});
