/**
 * Refuses text with NUL characters anywhere in a request (path, query or JSON
 * body). PostgreSQL cannot store or compare such text and would fail the
 * query; the client gets a clear 400 instead of a 500.
 */
import type { RequestHandler } from 'express';
import { badRequest } from '../internal/errors';

const NUL_MESSAGE = 'Text in the request must not contain NUL characters (\\u0000).';

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 64 || typeof value !== 'object' || value === null) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasNul(v, depth + 1)) return true;
  return Array.isArray(value) ? false : Object.keys(value).some((k) => k.includes('\u0000'));
}

function decodedPathHasNul(path: string): boolean {
  try {
    return decodeURIComponent(path).includes('\u0000');
  } catch {
    return false; // malformed escapes are the router's 400
  }
}

export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  if (decodedPathHasNul(req.path) || hasNul(req.query) || hasNul(req.body)) {
    next(badRequest(NUL_MESSAGE));
    return;
  }
  next();
};
