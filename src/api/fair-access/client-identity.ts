/**
 * Who a request counts against: a configured API key, else the client's address. The address is the
 * connection's, or, behind TRUSTED_PROXIES, what Express's `trust proxy` (proxy-addr) reads from
 * X-Forwarded-For. IPv6 clients count by their /64 network: one subscriber is usually given a whole
 * /64, so counting single addresses would give it billions of buckets.
 */
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { MAX_API_KEY_LENGTH, type ApiKeyLimit } from '../../internal/config';

const MAPPED_IPV4 = '::ffff:';

/** The bucket key of an address: IPv4 as is (also when mapped into IPv6), IPv6 as its /64 prefix. */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  if (!address.includes(':')) return address;
  if (address.startsWith(MAPPED_IPV4) && address.includes('.')) return address.slice(MAPPED_IPV4.length);
  return ipv6Prefix64(address);
}

/** The first four groups of an IPv6 address, written out (`2001:db8:0:1::/64`), whatever its spelling. */
function ipv6Prefix64(address: string): string {
  const zone = address.indexOf('%');
  const text = (zone >= 0 ? address.slice(0, zone) : address).toLowerCase();
  const gap = text.indexOf('::');
  const head = (gap >= 0 ? text.slice(0, gap) : text).split(':').filter((g) => g !== '');
  const groups = head.slice(0, 4);
  // Groups left out by "::" are zeros; only the first four matter here.
  while (groups.length < 4) groups.push('0');
  return `${groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

const BEARER = /^Bearer +(\S+) *$/i;
/** A longer Authorization header (a JWT, say) cannot hold a configured key: it is not looked at further. */
const LONGEST_BEARER_KEY_HEADER = 'Bearer '.length + MAX_API_KEY_LENGTH + 8;

/**
 * The configured API key a request carries, in X-API-Key or as a bearer token; undefined when it
 * carries none of them. A bearer token that is not a configured key (the JWT of the scan-proxy or the
 * ledger API) is left to authentication, as before.
 */
export function apiKeyOf(req: IncomingMessage, keys: ReadonlyMap<string, ApiKeyLimit>): ApiKeyLimit | undefined {
  const given = req.headers['x-api-key'];
  const byHeader = typeof given === 'string' ? keys.get(given.trim()) : undefined;
  if (byHeader !== undefined) return byHeader;
  const authorization = req.headers.authorization;
  if (authorization === undefined || authorization.length > LONGEST_BEARER_KEY_HEADER) return undefined;
  const token = BEARER.exec(authorization)?.[1];
  return token === undefined ? undefined : keys.get(token);
}

/** The client's address as the limits see it. */
export function clientAddress(req: Request, behindProxies: boolean): string | undefined {
  return behindProxies ? req.ip : req.socket.remoteAddress;
}
