/** The Scan API's error answers as its declarations (operation.ts) state them: the error body, one description per status. */
import type { ResponseDeclaration } from '../operation';
import { ErrorResponse } from '../schema-kit';

const DESCRIPTIONS: Record<number, string> = {
  400: 'A client mistake: the message says what is wrong.',
  404: 'Not found.',
  410: 'The history asked for was dropped by retention (HISTORY_RETENTION, off by default): the message says where the history starts.',
  501: 'Not implemented (bulk storage), or protobuf_json asked for an update ingested without it.',
  503: 'Not ready.',
};

/** The answers of these statuses, keyed by status. */
export function scanErrors(...statuses: number[]): Record<string, ResponseDeclaration> {
  return Object.fromEntries(
    statuses.map((s) => [String(s), { description: DESCRIPTIONS[s] ?? 'An unexpected error occurred.', body: ErrorResponse }]),
  );
}
