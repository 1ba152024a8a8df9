/**
 * Requests that name an ACS snapshot (holdings, /v0/state/acs): their zod
 * schemas, and the lists of parties and templates they carry, checked with
 * the Scan app's messages (docs/interfaces.md, "Scan: errors and limits").
 */
import type { Request } from 'express';
import { z } from 'zod';
import { parseStorableTimestamp, type Micros } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import type { TemplateRef } from '../../store/acs-repository';
import { int64 } from './params';
import { RecordTimeMatch } from './schemas';

/** The newest Scan's bound on request lists (HttpRequestLimits in HttpScanHandler). */
const MAX_LIST_ITEMS = 1000;

const DATE_TIME_MESSAGE = 'expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z';
/** A date-time between 0001-01-01 and 9999-12-31 (UTC), as microseconds. */
function parseDateTime(s: string): Micros | undefined {
  try {
    return parseStorableTimestamp(s);
  } catch {
    return undefined;
  }
}

/** A storable date-time query or body field, as microseconds (also the bulk operations' times). */
export const dateTime = z
  .string({ error: 'expected a date-time string' })
  .refine((s) => parseDateTime(s) !== undefined, { error: DATE_TIME_MESSAGE, abort: true })
  .transform((s) => parseDateTime(s)!)
  .meta({ format: 'date-time' });

const integer = z
  .number({ error: 'expected an integer' })
  .refine(Number.isInteger, { error: 'expected an integer' })
  .meta({ type: 'integer', format: 'int32' });
const strings = z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' });
const recordTimeMatch = RecordTimeMatch.nullish().transform((m) => m ?? 'exact');

const SnapshotSelection = {
  migration_id: int64,
  record_time: dateTime.describe('With record_time_match exact, a snapshot time; with at_or_before, any time.'),
  record_time_match: recordTimeMatch,
};

export const SummaryRequestV1 = z.object({ ...SnapshotSelection, owner_party_ids: strings });
export const SummaryRequestV0 = SummaryRequestV1.extend({ as_of_round: int64.nullish() });
export const HoldingsStateRequest = z.object({
  ...SnapshotSelection,
  after: z.string({ error: 'expected a string' }).nullish(),
  page_size: integer,
  owner_party_ids: strings,
});
export const AcsRequest = z.object({
  ...SnapshotSelection,
  after: z.string({ error: 'expected a string' }).nullish().describe('next_page_token of the previous page.'),
  page_size: integer,
  party_ids: strings.nullish(),
  templates: z
    .array(z.string({ error: 'expected a string' }).describe('package_name:Module:Entity'), { error: 'expected an array of strings' })
    .nullish(),
});
/** The older operations (/v1/state/acs, /v1/holdings/state): the same requests with an int64 page token. */
export const AcsRequestV1 = AcsRequest.extend({
  after: int64.nullish().describe('next_page_token of the previous page (valid for 24 hours).'),
});
export const HoldingsStateRequestV1 = HoldingsStateRequest.extend({ after: int64.nullish() });

const queryInt64 = z
  .string({ error: 'expected an integer' })
  .regex(/^-?\d{1,19}$/, { error: 'expected an integer' })
  .transform(Number)
  .refine(Number.isSafeInteger, { error: 'integer out of range' })
  .meta({ type: 'integer', format: 'int64', pattern: undefined });
export const SnapshotBeforeQuery = z.object({ before: dateTime, migration_id: queryInt64 });
export const SnapshotAfterQuery = z.object({ after: dateTime, migration_id: queryInt64 });

const PARTY_ID = /^\S{1,255}::\S{1,255}$/;

/** HttpRequestLimits.maxSizeOrFail, then nonEmptyOrFail when required (HttpScanHandler); party ids checked; duplicates dropped. */
export function partyList(field: string, parties: string[], required: boolean): string[] {
  if (parties.length > MAX_LIST_ITEMS) {
    throw badRequest(`Expected '${field}' to contain at most ${MAX_LIST_ITEMS} items, but contained ${parties.length}.`);
  }
  if (required && parties.length === 0) throw badRequest(`Expected '${field}' to contain at least one item, but contained none.`);
  for (const p of parties) {
    if (!PARTY_ID.test(p)) throw badRequest(`Invalid party id ${JSON.stringify(p)} in '${field}': expected <name>::<fingerprint>.`);
  }
  return [...new Set(parties)].sort();
}

export function templateList(templates: string[]): TemplateRef[] {
  if (templates.length > MAX_LIST_ITEMS) {
    throw badRequest(`Expected 'templates' to contain at most ${MAX_LIST_ITEMS} items, but contained ${templates.length}.`);
  }
  const refs = templates.map((t) => {
    const parts = t.split(':');
    if (parts.length !== 3 || parts.some((p) => p === '')) {
      throw badRequest("Malformed template_id, expected 'package_name:module_name:entity_name'");
    }
    const [packageName, moduleName, entityName] = parts as [string, string, string];
    return { packageName, qualifiedName: `${moduleName}:${entityName}` };
  });
  const unique = new Map(refs.map((r) => [`${r.packageName}:${r.qualifiedName}`, r]));
  return [...unique.keys()].sort().map((k) => unique.get(k)!);
}

/** A requested time as the client wrote it (validated by the schemas above), for messages. */
export type Quoted = string;

/** A query parameter as sent (the schema has checked it is a string). */
export const quotedQuery = (req: Request, name: string): Quoted => req.query[name] as string;

/** The body's record_time as sent (the schema has checked it is a date-time string). */
export const quotedRecordTime = (req: Request): Quoted => String((req.body as { record_time: unknown }).record_time);
