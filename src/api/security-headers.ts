/**
 * Security headers for a JSON API: nothing here may be framed, run as a script or style, or sniffed
 * as another type; HSTS for deployments behind TLS. They are the headers helmet sets with this
 * configuration, which depends on nothing in the request: helmet runs once at start-up, and every
 * response gets the headers it set, with one function instead of helmet's chain of thirteen.
 */
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};

/** The headers helmet sets (name and value, in its order), and those it removes. */
function helmetHeaders(options = HELMET_OPTIONS): { set: [string, string][]; removed: string[] } {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  let failure: unknown = 'helmet did not call next';
  helmet(options)({} as never, recorder as unknown as Response, (err?: unknown) => (failure = err));
  if (failure !== undefined) throw new Error('helmet did not set its headers at start-up', { cause: failure });
  return { set, removed };
}

export function securityHeaders(): RequestHandler {
  const { set, removed } = helmetHeaders();
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
