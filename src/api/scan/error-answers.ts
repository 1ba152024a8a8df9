/**
 * The Scan error answers as the OpenAPI document describes them per status: the `{"error": "..."}`
 * body with what the status means on the Scan API.
 */
import type { ResponseDeclaration } from '../operation';
import { ErrorResponse } from '../schema-kit';

const MEANINGS = {
  400: 'A client mistake: the message says what is wrong.',
  404: 'Not found.',
  410: 'The history asked for was dropped by retention (HISTORY_RETENTION, off by default): the message says where the history starts.',
  500: 'An unexpected error occurred.',
  501: 'Not implemented (bulk storage), or protobuf_json asked for an update ingested without it.',
  503: 'Not ready.',
} as const;

/** The error answers of these statuses, each with the Scan error body. */
export function scanErrors(...statuses: (keyof typeof MEANINGS)[]): Record<string, ResponseDeclaration> {
  return Object.fromEntries(statuses.map((s) => [String(s), { description: MEANINGS[s], body: ErrorResponse }]));
}
