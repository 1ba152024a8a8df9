/**
 * Bearer-token authentication with `jose`, the way a Canton participant
 * checks user tokens (reference ledger-api.md §6.2–6.4):
 * - keys: HS256 with a shared secret (testing), RS256/ES256/ES512 with one
 *   PEM public key or certificate (the key type sets the algorithm), or the
 *   keys of a JWKS URL (cached, selected by the `kid` the token must carry);
 *   a token's `alg` picks among the configured ones;
 * - claims: `sub` is the user (required), `aud` must contain the configured
 *   audience when one is set, `exp` (optional, as in Canton) and `nbf` are
 *   checked with a small leeway;
 * - rights: admin users read as any party; other users read as the parties
 *   configured for them; a user in neither list is unknown (the middleware
 *   refuses unknown users with 403 unless told otherwise).
 * Every failure is an AuthFailure with the status only: the reason is for the
 * server log, never for the client.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey, type KeyObject } from 'jose';
import { ConfigError, type Config } from '../../internal/config';

/** Seconds of clock skew tolerated on exp and nbf. */
export const CLOCK_LEEWAY_SECONDS = 5;
/** How long JWKS keys are cached (Canton caches them for 5 minutes). */
export const JWKS_CACHE_MS = 5 * 60_000;

export interface AuthSettings {
  hs256Secret?: string | Uint8Array;
  /** PEM of a public key (SPKI) or an X.509 certificate. */
  publicKeyPem?: string;
  jwksUrl?: string;
  audience?: string;
  adminUsers: readonly string[];
  /** Read-as parties of each non-admin user. */
  userRights: Readonly<Record<string, readonly string[]>>;
}

export interface Principal {
  user: string;
  /** False for a valid token whose user is neither an admin nor in LEDGER_USER_RIGHTS. */
  known: boolean;
  /** May read as any party (admin users, or authentication disabled). */
  readAsAnyParty: boolean;
  readAs: ReadonlySet<string>;
}

/** Why a request is refused: 401 (no valid token) or 403 (the user may not do this). */
export class AuthFailure extends Error {
  constructor(
    readonly status: 401 | 403,
    /** For the server log only. */
    readonly reason: string,
    /** True when the token is valid but its user is unknown (Canton's "invalid token" context). */
    readonly unknownUser = false,
  ) {
    super(reason);
    this.name = 'AuthFailure';
  }
}

export interface TokenVerifier {
  /** Resolves the principal of a raw token, or throws AuthFailure (401). */
  verify(token: string): Promise<Principal>;
}

type AsymmetricAlg = 'RS256' | 'ES256' | 'ES512';

/** The public key of a PEM key or certificate, and the algorithm its type implies. */
export function readPublicKey(pem: string): { key: KeyObject; alg: AsymmetricAlg } {
  const key = pem.includes('BEGIN CERTIFICATE') ? new crypto.X509Certificate(pem).publicKey : crypto.createPublicKey(pem);
  if (key.asymmetricKeyType === 'rsa') return { key, alg: 'RS256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return { key, alg: 'ES256' };
    if (curve === 'secp521r1') return { key, alg: 'ES512' };
    throw new Error(`EC curve ${curve ?? 'unknown'} is not supported (P-256 for ES256, P-521 for ES512)`);
  }
  throw new Error(`${key.asymmetricKeyType ?? 'unknown'} keys are not supported (RSA for RS256, EC for ES256/ES512)`);
}

export function createTokenVerifier(settings: AuthSettings): TokenVerifier {
  const secret = typeof settings.hs256Secret === 'string' ? new TextEncoder().encode(settings.hs256Secret) : settings.hs256Secret;
  const publicKey = settings.publicKeyPem ? readPublicKey(settings.publicKeyPem) : undefined;
  const jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl), { cacheMaxAge: JWKS_CACHE_MS }) : undefined;
  if (!secret && !publicKey && !jwks) throw new Error('createTokenVerifier needs a secret, a public key or a JWKS URL');

  const algorithms = [...(secret ? ['HS256'] : []), ...(publicKey ? [publicKey.alg] : []), ...(jwks ? ['RS256', 'ES256', 'ES512'] : [])];
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (header.alg === 'HS256' && secret) return secret;
    if (publicKey && header.alg === publicKey.alg) return publicKey.key;
    if (jwks) {
      if (!header.kid) throw new Error('a JWKS-verified token needs a kid');
      return jwks(header, token);
    }
    throw new Error(`no key for algorithm ${String(header.alg)}`);
  };
  const admins = new Set(settings.adminUsers);

  return {
    async verify(token) {
      let sub: unknown;
      try {
        const { payload } = await jwtVerify(token, getKey, {
          algorithms: [...new Set(algorithms)],
          audience: settings.audience,
          clockTolerance: CLOCK_LEEWAY_SECONDS,
        });
        sub = payload.sub;
      } catch (err) {
        throw new AuthFailure(401, `invalid token: ${(err as Error).message}`);
      }
      if (typeof sub !== 'string' || sub === '') throw new AuthFailure(401, 'invalid token: no sub claim');
      if (admins.has(sub)) return { user: sub, known: true, readAsAnyParty: true, readAs: new Set() };
      const parties = settings.userRights[sub];
      return { user: sub, known: parties !== undefined, readAsAnyParty: false, readAs: new Set(parties ?? []) };
    },
  };
}

/** The principal when authentication is disabled: everything is allowed, as with Canton's wildcard auth service. */
export const ANONYMOUS: Principal = Object.freeze({ user: '', known: true, readAsAnyParty: true, readAs: new Set<string>() });

/** Whether the principal may read as every listed party (and as any party, if asked). */
export function mayRead(principal: Principal, needs: { parties: readonly string[]; anyParty: boolean }): boolean {
  if (principal.readAsAnyParty) return true;
  return !needs.anyParty && needs.parties.every((p) => principal.readAs.has(p));
}

/** The auth settings of the configuration, or undefined when no key is configured. A key file that cannot be read is a ConfigError. */
export function authSettingsFromConfig(ledger: Config['ledger']): AuthSettings | undefined {
  let publicKeyPem: string | undefined;
  if (ledger.publicKeyFile) {
    try {
      publicKeyPem = fs.readFileSync(ledger.publicKeyFile, 'utf8');
      readPublicKey(publicKeyPem);
    } catch (err) {
      throw new ConfigError(`Invalid configuration: LEDGER_AUTH_PUBLIC_KEY_FILE=${JSON.stringify(ledger.publicKeyFile)}: ${(err as Error).message}.`);
    }
  }
  if (!ledger.hs256Secret && !publicKeyPem && !ledger.jwksUrl) return undefined;
  return {
    hs256Secret: ledger.hs256Secret,
    publicKeyPem,
    jwksUrl: ledger.jwksUrl,
    audience: ledger.audience,
    adminUsers: ledger.adminUsers,
    userRights: ledger.userRights,
  };
}
