/**
 * Authentication of the validator scan-proxy. The validator app authenticates
 * these routes only (AuthenticationOnlyAuthExtractor: any valid user token, no
 * rights checked) and refuses through pekko's default rejections: 401 with a
 * `WWW-Authenticate` challenge and a plain-text message that says nothing
 * about why the token failed. Applied when a token verifier is configured
 * (LEDGER_AUTH_*); otherwise the routes are open, as the scan data is public.
 */
import type { RequestHandler } from 'express';
import type { Config } from '../../internal/config';
import { authenticate, authModeFromConfig } from '../auth/middleware';

export const CREDENTIALS_MISSING = 'The resource requires authentication, which was not supplied with the request';
export const CREDENTIALS_REJECTED = 'The supplied authentication is invalid';

export function validatorAuth(config: Config): RequestHandler | undefined {
  const mode = authModeFromConfig(config);
  if (mode.kind !== 'verify') return undefined;
  return authenticate(mode, {
    allowUnknownUsers: true,
    reject: (res) => {
      const given = res.req.headers.authorization !== undefined;
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="scan-proxy"')
        .type('text/plain')
        .send(given ? CREDENTIALS_REJECTED : CREDENTIALS_MISSING);
    },
  });
}
