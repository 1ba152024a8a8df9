/**
 * Opaque pagination tokens: a keyset position (any JSON value, typically the
 * sort key of the last row served) authenticated with an HMAC-SHA256 whose key
 * every API replica shares (PAGE_TOKEN_SECRET, or else a key created on first
 * use in api_secrets). A token is
 * bound to the operation and to the request that produced it, so an edited
 * token, one forged without the key, or one replayed against another request
 * or operation is refused with a 400 instead of answering a wrong page.
 *
 * Wire form: base64url(JSON payload) "." base64url(HMAC(key, domain ‖ payload)).
 * The payload is readable but meaningless to clients; they must pass it back
 * unchanged.
 */
import crypto from 'node:crypto';
import type { z } from 'zod';
import type { Json } from '../domain/json';
import { HttpError } from '../internal/errors';
import { getOrCreateApiSecret } from '../store/api-secret-repository';
import type { Db } from '../store/pool';

/** What a token is valid for: the operation and a canonical description of its request (without the token). */
export interface TokenScope {
  operation: string;
  /** Must be canonical: the same request always gives the same JSON (sort sets, normalise times). */
  request: Json;
}

export class PageTokenError extends HttpError {
  constructor(message: string) {
    super(400, message);
    this.name = 'PageTokenError';
  }
}

const VERSION = 1;
const MAC_DOMAIN = 'scan-indexer page token v1\n';
const SECRET_NAME = 'page-token-hmac-sha256';
const TOKEN_PATTERN = /^([A-Za-z0-9_-]{1,4096})\.([A-Za-z0-9_-]{43})$/;

const b64url = (b: Buffer) => b.toString('base64url');
export const requestDigest = (request: Json): string =>
  b64url(crypto.createHash('sha256').update(JSON.stringify(request)).digest().subarray(0, 16));

/** Issues and checks page tokens of one wire type: strings here, numbers in numbered-page-token.ts. */
export interface PositionTokens<T extends string | number> {
  encode(scope: TokenScope, position: Json): Promise<T>;
  verify<P>(scope: TokenScope, token: T, position: z.ZodType<P>, field?: string): Promise<P>;
}

export class PageTokens implements PositionTokens<string> {
  constructor(private readonly key: () => Promise<Buffer>) {}

  private async mac(payload: string): Promise<Buffer> {
    return crypto
      .createHmac('sha256', await this.key())
      .update(MAC_DOMAIN)
      .update(payload)
      .digest();
  }

  async encode(scope: TokenScope, position: Json): Promise<string> {
    const payload = b64url(Buffer.from(JSON.stringify({ v: VERSION, o: scope.operation, r: requestDigest(scope.request), p: position })));
    return `${payload}.${b64url(await this.mac(payload))}`;
  }

  /** The position of a token issued by encode for the same scope; PageTokenError (400) otherwise. */
  async verify<P>(scope: TokenScope, token: string, position: z.ZodType<P>, field = 'after'): Promise<P> {
    const altered = new PageTokenError(
      `Invalid page token in '${field}': it was altered or was not issued by this service. Pass next_page_token back unchanged.`,
    );
    const m = TOKEN_PATTERN.exec(token);
    if (!m) throw altered;
    const [, payload, mac] = m as unknown as [string, string, string];
    const expected = await this.mac(payload);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw altered;
    let body: { v?: unknown; o?: unknown; r?: unknown; p?: unknown };
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof body;
    } catch {
      throw altered;
    }
    if (body.v !== VERSION)
      throw new PageTokenError(`Invalid page token in '${field}': it comes from an incompatible version of this service.`);
    if (body.o !== scope.operation || body.r !== requestDigest(scope.request)) {
      throw new PageTokenError(
        `Invalid page token in '${field}': it was issued for a different request. Repeat the request that returned it, changing only '${field}'.`,
      );
    }
    const parsed = position.safeParse(body.p);
    if (!parsed.success)
      throw new PageTokenError(`Invalid page token in '${field}': it comes from an incompatible version of this service.`);
    return parsed.data;
  }
}

/** PageTokens with a fixed key (tests, or a key taken from configuration). */
export function pageTokensWithKey(key: Buffer): PageTokens {
  return new PageTokens(() => Promise.resolve(key));
}

const byDb = new WeakMap<Db, PageTokens>();

/** The process-wide PageTokens of a database (the primary's: the key may have to be created), read or created once, on first use. */
export function pageTokensFor(db: Db): PageTokens {
  let tokens = byDb.get(db);
  if (!tokens) {
    let loading: Promise<Buffer> | undefined;
    tokens = new PageTokens(() => {
      loading ??= getOrCreateApiSecret(db, SECRET_NAME, () => crypto.randomBytes(32)).catch((err: unknown) => {
        loading = undefined; // a database hiccup must not poison the key for the life of the process
        throw err;
      });
      return loading;
    });
    byDb.set(db, tokens);
  }
  return tokens;
}
