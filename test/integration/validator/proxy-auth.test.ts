/**
 * The validator scan-proxy behind the configured token verifier, through the
 * real application: any valid token passes (no rights are needed, as in the
 * validator app); a missing, forged or expired one is a 401 with pekko's
 * plain-text messages and a Bearer challenge. Without a verifier the routes are open.
 */
import { CREDENTIALS_MISSING, CREDENTIALS_REJECTED } from '../../../src/api/validator/auth';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { hs256Token, SECRET } from '../ledger/support';

const ROUTES = ['/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds', '/api/validator/v0/scan-proxy/ans-entries?page_size=5'];

describe('validator scan-proxy authentication', () => {
  const t = useTestDatabase();
  let secured: TestApi;
  let open: TestApi;
  beforeAll(async () => {
    secured = await startTestApi(t, { env: { LEDGER_AUTH_HS256_SECRET: SECRET } });
    open = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await secured.close();
    await open.close();
  });

  it.each(ROUTES)('%s: refuses requests without a valid token', async (path) => {
    const cases: [Record<string, string>, string][] = [
      [{}, CREDENTIALS_MISSING],
      [{ authorization: 'Basic dXNlcjpwYXNz' }, CREDENTIALS_REJECTED],
      [
        { authorization: `Bearer ${await hs256Token('validator-user', {}, { secret: 'another-secret-of-enough-length-0123456789' })}` },
        CREDENTIALS_REJECTED,
      ],
      [{ authorization: `Bearer ${await hs256Token('validator-user', {}, { expiresIn: -600 })}` }, CREDENTIALS_REJECTED],
    ];
    for (const [headers, message] of cases) {
      const res = await request(secured.url, 'GET', path, undefined, headers);
      expect({
        status: res.status,
        type: res.headers.get('content-type'),
        challenge: res.headers.get('www-authenticate'),
        text: res.text,
      }).toEqual({
        status: 401,
        type: 'text/plain; charset=utf-8',
        challenge: 'Bearer realm="scan-proxy"',
        text: message,
      });
    }
  });

  it.each(ROUTES)('%s: answers any valid user token, and everyone when no verifier is configured', async (path) => {
    const token = await hs256Token('some-validator-user-without-rights');
    const withToken = await request(secured.url, 'GET', path, undefined, { authorization: `Bearer ${token}` });
    const anonymous = await request(open.url, 'GET', path);
    expect(withToken.status).toBe(200);
    expect(anonymous.status).toBe(200);
    expect(withToken.text).toBe(anonymous.text);
  });
});
