/** What the Express application adds to every request: request ids, security headers and HTTP metrics. */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

describe('request ids and metrics', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api.close();
  });

  it('echoes a request id, or makes one', async () => {
    const given = await request(api.url, 'GET', '/livez', undefined, { 'x-request-id': 'abc-123' });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await request(api.url, 'GET', '/livez', undefined, { 'x-request-id': 'no spaces allowed' });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the security headers of a JSON API on every answer, errors included', async () => {
    for (const [method, path] of [
      ['GET', '/livez'],
      ['GET', '/api/scan/v0/dso-party-id'],
      ['POST', '/api/scan/v0/state/acs'],
      ['GET', '/nope'],
      ['GET', '/docs/openapi.json'],
    ] as const) {
      const res = await request(api.url, method, path, method === 'POST' ? {} : undefined);
      expect({
        path,
        csp: res.headers.get('content-security-policy'),
        nosniff: res.headers.get('x-content-type-options'),
        frame: res.headers.get('x-frame-options'),
        hsts: res.headers.get('strict-transport-security'),
        referrer: res.headers.get('referrer-policy'),
        poweredBy: res.headers.get('x-powered-by'),
      }).toEqual({
        path,
        csp: "default-src 'none';frame-ancestors 'none'",
        nosniff: 'nosniff',
        frame: 'DENY',
        hsts: 'max-age=31536000; includeSubDomains',
        referrer: 'no-referrer',
        poweredBy: null,
      });
    }
  });

  it('exports request metrics labelled by route template, never by raw path', async () => {
    expect((await request(api.url, 'GET', '/api/scan/v0/dso-party-id')).status).toBe(404);
    expect((await request(api.url, 'GET', '/nope')).status).toBe(404);
    const res = await request(api.url, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /scan_indexer_http_requests_total\{method="GET",route="\/api\/scan\/v0\/dso-party-id",status_code="404"\} \d+/,
    );
    expect(res.text).toMatch(/route="unmatched",status_code="404"/);
    expect(res.text).not.toMatch(/route="\/nope"/);
  });
});
