/**
 * The one way JSON leaves the Scan and validator routes: a body that may embed
 * stored JSON text verbatim (RawJson), serialised as JSON.stringify would.
 */
import type { Response } from 'express';
import { toJsonText, type JsonBody } from '../domain/raw-json';

export function sendJson(res: Response, body: JsonBody, status = 200): void {
  res.status(status).type('application/json; charset=utf-8').send(toJsonText(body));
}
