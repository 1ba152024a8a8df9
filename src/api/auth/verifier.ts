/**
 * Bearer-token authentication with `jose`, the way a Canton participant
 * checks user tokens (docs/interfaces.md, "Ledger API: authentication"):
 * - keys: HS256 with a shared secret (testing), RS256/ES256/ES512 with one
 *   PEM public key or certificate (the key type sets the algorithm), or the
 *   keys of a JWKS URL (cached, selected by the `kid` the token must carry);
 *   HS256 tokens go to the secret; a token with a `kid` goes to the JWKS first
 *   and then to the PEM key, one without to the PEM key (each tried in turn);
 * - claims: `sub` is the user (required); `exp` is required and at most
 *   LEDGER_AUTH_MAX_TOKEN_LIFETIME_SECONDS away (a token that never expires,
 *   or practically never, is refused, like Canton's max-token-lifetime does);
 *   `exp`, `nbf` and `iat` are checked with a small leeway (none in the future); the audience as Canton's
 *   AuthServiceJWT reads it (AuthServiceJWTPayload): with a configured audience, `aud` must
 *   contain it; without one, the token must be either a participant-audience
 *   token (`aud` is exactly one `https://daml.com/jwt/aud/participant/<id>`)
 *   or a scope token (`scope` or `scp` holds `daml_ledger_api`; a single
 *   `aud` value is then read as the participant id); a participant id other
 *   than LEDGER_PARTICIPANT_ID is a 403 (the token is for another participant);
 * - rights: admin users read as any party; other users read as the parties
 *   configured for them; a user in neither list is unknown (the middleware
 *   refuses unknown users with 403 unless told otherwise).
 * Every failure is an AuthFailure with the status only: the reason is for the
 * server log, never for the client.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyObject } from 'jose';
import { ConfigError, type Config } from '../../internal/config';

/** Seconds of clock skew tolerated on exp and nbf. */
const CLOCK_LEEWAY_SECONDS = 5;
/** How long JWKS keys are cached (Canton caches them for 5 minutes). */
const JWKS_CACHE_MS = 5 * 60_000;
/**
 * How long a verified token is taken on trust before its signature is checked again (never past its
 * exp): wallets send the same token on every poll, and checking an RS256 or ES256 signature costs more
 * than answering a kept answer. Bounded so that a key withdrawn from the JWKS stops working soon after.
 */
const VERIFIED_TOKEN_TTL_MS = 60_000;
/** Verified tokens kept at most; the oldest is dropped first. */
const VERIFIED_TOKENS_KEPT = 10_000;
/** Prefix of Canton's participant audience (AuthServiceJWTPayload). */
const PARTICIPANT_AUDIENCE_PREFIX = 'https://daml.com/jwt/aud/participant/';
/** The scope of Canton's scope-based tokens. */
const LEDGER_API_SCOPE = 'daml_ledger_api';

/** The audience a token addressed to this participant carries when no audience is configured. */
export function participantAudience(participantId: string): string {
  return `${PARTICIPANT_AUDIENCE_PREFIX}${participantId}`;
}

export interface AuthSettings {
  hs256Secret?: string | Uint8Array;
  /** PEM of a public key (SPKI) or an X.509 certificate. */
  publicKeyPem?: string;
  jwksUrl?: string;
  /** The target audience; unset: Canton's participant-audience or scope rule, against participantId. */
  audience?: string;
  /** The longest remaining lifetime (exp − now) accepted; unset: no bound beyond exp being required. */
  maxTokenLifetimeSeconds?: number;
  /** This participant's id (LEDGER_PARTICIPANT_ID), which audience-less tokens must be bound to, if to any. */
  participantId: string;
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

/**
 * Without a configured audience, whether the payload is a token for this
 * participant by Canton's rule (AuthServiceJWTPayload.readPayload):
 * `aud` may hold one value only; a participant audience binds the token to
 * that participant; otherwise `daml_ledger_api` must be in the scope, and a
 * single `aud` value is read as the participant id. Throws AuthFailure.
 */
function checkParticipantBinding(payload: JWTPayload, participantId: string): void {
  const aud: unknown = payload.aud ?? undefined;
  const audience: unknown = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud;
  if (audience !== undefined && typeof audience !== 'string') {
    throw new AuthFailure(401, 'invalid token: aud must be a single string when no audience is configured');
  }
  let boundTo: string | undefined;
  if (audience !== undefined && audience.startsWith(PARTICIPANT_AUDIENCE_PREFIX)) {
    boundTo = audience.slice(PARTICIPANT_AUDIENCE_PREFIX.length);
    if (boundTo === '') throw new AuthFailure(401, 'invalid token: the participant audience names no participant');
  } else {
    const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const scp = Array.isArray(payload.scp) ? payload.scp : [];
    if (!scope.includes(LEDGER_API_SCOPE) && !scp.includes(LEDGER_API_SCOPE)) {
      throw new AuthFailure(
        401,
        `invalid token: neither a participant audience (${PARTICIPANT_AUDIENCE_PREFIX}…) nor the ${LEDGER_API_SCOPE} scope`,
      );
    }
    boundTo = audience;
  }
  if (boundTo !== undefined && boundTo !== participantId) {
    throw new AuthFailure(403, `the token is only valid for participant '${boundTo}', this is '${participantId}'`);
  }
}

export function createTokenVerifier(settings: AuthSettings): TokenVerifier {
  const secret = typeof settings.hs256Secret === 'string' ? new TextEncoder().encode(settings.hs256Secret) : settings.hs256Secret;
  const publicKey = settings.publicKeyPem ? readPublicKey(settings.publicKeyPem) : undefined;
  const jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl), { cacheMaxAge: JWKS_CACHE_MS }) : undefined;
  if (!secret && !publicKey && !jwks) throw new Error('createTokenVerifier needs a secret, a public key or a JWKS URL');

  /** The keys to try for a token, in order: each is a getKey that jose calls once. */
  const keysFor = (token: string): JWTVerifyGetKey[] => {
    const header = decodeProtectedHeader(token);
    if (header.alg === 'HS256') return secret ? [() => secret] : [];
    const keys: JWTVerifyGetKey[] = [];
    if (jwks && header.kid) keys.push((h, t) => jwks(h, t));
    if (publicKey && header.alg === publicKey.alg) keys.push(() => publicKey.key);
    if (jwks && !header.kid && keys.length === 0) {
      keys.push(() => {
        throw new Error('a JWKS-verified token needs a kid');
      });
    }
    return keys;
  };
  const algorithms = [
    ...new Set([...(secret ? ['HS256'] : []), ...(publicKey ? [publicKey.alg] : []), ...(jwks ? ['RS256', 'ES256', 'ES512'] : [])]),
  ];
  const options = { algorithms, audience: settings.audience, clockTolerance: CLOCK_LEEWAY_SECONDS, requiredClaims: ['exp'] };
  const admins = new Set(settings.adminUsers);
  // A Map, not the record: a subject such as "constructor" or "__proto__" must not find Object.prototype's members.
  const rights = new Map<string, readonly string[]>(Object.entries(settings.userRights));

  const verifySignatureAndClaims = async (token: string): Promise<JWTPayload> => {
    let keys: JWTVerifyGetKey[];
    try {
      keys = keysFor(token);
    } catch (err) {
      throw new AuthFailure(401, `invalid token: ${(err as Error).message}`);
    }
    if (keys.length === 0) throw new AuthFailure(401, 'invalid token: no configured key for its algorithm');
    const errors: string[] = [];
    for (const key of keys) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    throw new AuthFailure(401, `invalid token: ${errors.join('; ')}`);
  };

  const verified = new Map<string, { principal: Principal; until: number }>();

  const verifyUncached = async (token: string): Promise<{ principal: Principal; exp: number }> => {
    const payload = await verifySignatureAndClaims(token);
    checkTimes(payload, settings.maxTokenLifetimeSeconds);
    const sub = payload.sub;
    if (typeof sub !== 'string' || sub === '') throw new AuthFailure(401, 'invalid token: no sub claim');
    if (settings.audience === undefined) checkParticipantBinding(payload, settings.participantId);
    // requiredClaims makes jose refuse a token without a numeric exp.
    const exp = payload.exp as number;
    if (admins.has(sub)) return { principal: { user: sub, known: true, readAsAnyParty: true, readAs: new Set() }, exp };
    const parties = rights.get(sub);
    return { principal: { user: sub, known: parties !== undefined, readAsAnyParty: false, readAs: new Set(parties ?? []) }, exp };
  };

  return {
    async verify(token) {
      const now = Date.now();
      const kept = verified.get(token);
      if (kept !== undefined && now < kept.until) return kept.principal;
      verified.delete(token);
      // Failures are not kept: a refused token is checked again, and says why each time.
      const { principal, exp } = await verifyUncached(token);
      if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value as string);
      // Until exp as jose judges it (with the leeway), and no longer than the TTL.
      verified.set(token, { principal, until: Math.min(now + VERIFIED_TOKEN_TTL_MS, (exp + CLOCK_LEEWAY_SECONDS) * 1000) });
      return principal;
    },
  };
}

/**
 * What jose leaves open: a token valid far into the future (exp beyond the configured lifetime,
 * e.g. exp = 1e20) or issued in the future is refused, with the same leeway as exp and nbf.
 */
function checkTimes(payload: JWTPayload, maxLifetimeSeconds: number | undefined): void {
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_LEEWAY_SECONDS) {
    throw new AuthFailure(401, 'invalid token: issued in the future (iat)');
  }
  if (
    maxLifetimeSeconds !== undefined &&
    typeof payload.exp === 'number' &&
    payload.exp - now > maxLifetimeSeconds + CLOCK_LEEWAY_SECONDS
  ) {
    throw new AuthFailure(401, `invalid token: expires more than ${maxLifetimeSeconds} s from now (exp)`);
  }
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
      throw new ConfigError(
        `Invalid configuration: LEDGER_AUTH_PUBLIC_KEY_FILE=${JSON.stringify(ledger.publicKeyFile)}: ${(err as Error).message}.`,
      );
    }
  }
  if (!ledger.hs256Secret && !publicKeyPem && !ledger.jwksUrl) return undefined;
  return {
    hs256Secret: ledger.hs256Secret,
    publicKeyPem,
    jwksUrl: ledger.jwksUrl,
    audience: ledger.audience,
    maxTokenLifetimeSeconds: ledger.maxTokenLifetimeSeconds,
    participantId: ledger.participantId,
    adminUsers: ledger.adminUsers,
    userRights: ledger.userRights,
  };
}
