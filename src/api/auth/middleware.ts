/**
 * Express middleware for bearer tokens, shared by the ledger interface and the
 * validator scan-proxy:
 *
 *   router.use(authenticate(authModeFromConfig(config), { reject }))
 *
 * answers requests without a valid token (401) or of an unknown user (403)
 * through `reject`, and leaves the Principal of the others in `res.locals`,
 * where `principalOf(res)` reads it for per-request rights.
 */
import type { RequestHandler, Response } from 'express';
import type { Config } from '../../internal/config';
import { ANONYMOUS, AuthFailure, authSettingsFromConfig, createTokenVerifier, type Principal, type TokenVerifier } from './verifier';

/**
 * How a router authenticates: with a verifier; `disabled` (everything allowed,
 * only when the operator said so); or `unconfigured` (every request refused:
 * fail closed when a router is built without a key).
 */
export type AuthMode = { kind: 'verify'; verifier: TokenVerifier } | { kind: 'disabled' } | { kind: 'unconfigured' };

/** Writes the refusal; bodies must not explain the failure (Canton's AuthServiceJWT and Authorizer; docs/interfaces.md, "Ledger API: authentication"). */
type RejectAuth = (res: Response, failure: AuthFailure) => void;

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)[ ]*$/i;

const modes = new WeakMap<Config['ledger'], AuthMode>();

/**
 * How this configuration authenticates (LEDGER_AUTH_* knobs). One mode, and so
 * one JWKS cache, per configuration, however many routers use it.
 */
export function authModeFromConfig(config: Config): AuthMode {
  let mode = modes.get(config.ledger);
  if (!mode) {
    const settings = authSettingsFromConfig(config.ledger);
    mode = settings
      ? { kind: 'verify', verifier: createTokenVerifier(settings) }
      : config.ledger.authDisabled
        ? { kind: 'disabled' }
        : { kind: 'unconfigured' };
    modes.set(config.ledger, mode);
  }
  return mode;
}

export interface AuthenticateOptions {
  reject: RejectAuth;
  /** Let through valid tokens of users without configured rights (default false: 403, as Canton does). */
  allowUnknownUsers?: boolean;
}

export function authenticate(mode: AuthMode, options: AuthenticateOptions): RequestHandler {
  return (req, res, next) => {
    const refuse = (failure: AuthFailure) => {
      req.log?.warn({ status: failure.status, reason: failure.reason }, 'request refused by authentication');
      res.locals.authRefusal = refusalKind(failure);
      options.reject(res, failure);
    };
    if (mode.kind === 'disabled') {
      res.locals.principal = ANONYMOUS;
      next();
      return;
    }
    if (mode.kind === 'unconfigured') {
      refuse(new AuthFailure(401, 'no token verifier is configured'));
      return;
    }
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (!token) {
      refuse(new AuthFailure(401, req.headers.authorization ? 'malformed Authorization header' : 'no bearer token'));
      return;
    }
    mode.verifier.verify(token).then(
      (principal) => {
        if (!principal.known && !options.allowUnknownUsers) {
          refuse(new AuthFailure(403, `unknown user '${principal.user}'`, true));
          return;
        }
        res.locals.principal = principal;
        next();
      },
      (err: unknown) => (err instanceof AuthFailure ? refuse(err) : next(err)),
    );
  };
}

/** A bounded label for the refusal metric (the reason text can hold a user name). */
function refusalKind(failure: AuthFailure): string {
  if (failure.reason.startsWith('unknown user')) return 'unknown_user';
  if (failure.reason === 'no token verifier is configured') return 'no_verifier';
  if (failure.reason === 'no bearer token') return 'no_token';
  if (failure.reason === 'malformed Authorization header') return 'malformed_header';
  return 'invalid_token';
}

/** The principal `authenticate` established for this request. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('principalOf: the route is not behind authenticate()');
  return principal;
}
