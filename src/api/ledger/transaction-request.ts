/**
 * The body of POST /v2/updates/transaction-by-id, in two steps as Canton
 * handles it (JsUpdateService, CirceRelaxedCodec; docs/interfaces.md, "Ledger API: transaction by id"):
 * 1. decoding, lenient like Canton's relaxed codec (missing fields take
 *    defaults, unknown fields are ignored); JSON that does not parse or has a
 *    wrong type is an UndecodableRequest (400 text/plain);
 * 2. validation into a TransactionFormat, whose failures are LedgerErrors
 *    (MISSING_FIELD, INVALID_FIELD, INVALID_ARGUMENT).
 */
import { z } from 'zod';
import {
  legacyTransactionFormat,
  parseIdentifier,
  WILDCARD,
  type CumulativeFilter,
  type Filters,
  type TransactionFormat,
} from '../../domain/ledger-filters';
import { ledgerErrors, UndecodableRequest } from './errors';

const SHAPES = ['TRANSACTION_SHAPE_UNSPECIFIED', 'TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS'] as const;
const flag = z.boolean().nullish();

const VARIANTS = {
  Empty: z.object({}),
  WildcardFilter: z.object({ value: z.object({ includeCreatedEventBlob: flag }) }),
  TemplateFilter: z.object({ value: z.object({ templateId: z.string().nullish(), includeCreatedEventBlob: flag }) }),
  InterfaceFilter: z.object({
    value: z.object({ interfaceId: z.string().nullish(), includeInterfaceView: flag, includeCreatedEventBlob: flag }),
  }),
};
type Variant = keyof typeof VARIANTS;
type IdentifierFilter = { [K in Variant]: { kind: K } & z.output<(typeof VARIANTS)[K]> }[Variant];

/** A one-key object naming the variant (docs/interfaces.md, "Ledger API: wire conventions"). */
const identifierFilter = z.record(z.string(), z.unknown()).transform((obj, ctx): IdentifierFilter => {
  const keys = Object.keys(obj);
  const key = keys[0] as Variant;
  if (keys.length !== 1 || !(key in VARIANTS)) {
    ctx.addIssue({ code: 'custom', message: `expected exactly one of ${Object.keys(VARIANTS).join(', ')}` });
    return z.NEVER;
  }
  const parsed = VARIANTS[key].safeParse(obj[key]);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] });
    return z.NEVER;
  }
  return { kind: key, ...parsed.data } as IdentifierFilter;
});

const filtersSchema = z.object({ cumulative: z.array(z.object({ identifierFilter: identifierFilter.nullish() })).nullish() });

export const eventFormatSchema = z.object({
  filtersByParty: z.record(z.string(), filtersSchema).nullish(),
  filtersForAnyParty: filtersSchema.nullish(),
  verbose: flag,
});

export const transactionFormatSchema = z.object({
  eventFormat: eventFormatSchema.nullish(),
  transactionShape: z.enum(SHAPES).nullish(),
});

const bodySchema = z.object({
  updateId: z.string().nullish(),
  requestingParties: z.array(z.string()).nullish(),
  transactionFormat: transactionFormatSchema.nullish(),
});

type Body = z.output<typeof bodySchema>;
type FiltersInput = z.output<typeof filtersSchema>;

const TYPE_NAMES: Record<string, string> = { object: 'json object', array: 'json array', record: 'json object' };

function pathText(path: PropertyKey[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('');
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** How much of a wrong value the message echoes: enough to recognise it, never the whole body. */
const MAX_ECHOED_VALUE = 200;

const cut = (text: string) => (text.length > MAX_ECHOED_VALUE ? `${text.slice(0, MAX_ECHOED_VALUE)}…` : text);

/** A wrong value as the message shows it: JSON, cut at MAX_ECHOED_VALUE characters. */
function echo(value: unknown): string {
  try {
    // Throws RangeError on values nested deeper than the stack allows.
    return cut(JSON.stringify(value) ?? 'undefined');
  } catch {
    return Array.isArray(value) ? '[…]' : '{…}';
  }
}

/** circe's messages as tapir reports them (its DefaultDecodeFailureHandler), for the first problem. */
function describe(issue: z.core.$ZodIssue, input: unknown): string {
  const at = issue.path.length ? ` at '${cut(pathText(issue.path))}'` : '';
  if (issue.code === 'invalid_type') {
    return `Got value '${echo(valueAt(input, issue.path))}' with wrong type, expecting ${TYPE_NAMES[issue.expected] ?? issue.expected}${at}`;
  }
  if (issue.code === 'invalid_value') {
    const value = valueAt(input, issue.path);
    return `Unrecognized enum value ${typeof value === 'string' ? cut(value) : echo(value)}. Supported values: [${SHAPES.join(', ')}]${at}`;
  }
  return `${issue.message}${at}`;
}

function decode<T>(schema: z.ZodType<T>, text: string): T {
  if (text.trim() === '') throw new UndecodableRequest('exhausted input');
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new UndecodableRequest(`malformed JSON: ${(err as Error).message}`);
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UndecodableRequest(issue ? describe(issue, input) : undefined);
  }
  return result.data;
}

/**
 * Step 1: the raw body text to the decoded request, or UndecodableRequest.
 * Whatever else goes wrong while decoding (e.g. a RangeError on a body nested
 * too deeply) is the client's body too: the same 400 text/plain, never a 500.
 */
export function decodeLedgerBody<T>(schema: z.ZodType<T>, text: string): T {
  try {
    return decode(schema, text);
  } catch (err) {
    if (err instanceof UndecodableRequest) throw err;
    throw new UndecodableRequest(undefined);
  }
}

export function decodeTransactionByIdBody(text: string): Body {
  return decodeLedgerBody(bodySchema, text);
}

export function cumulative(input: FiltersInput, where: string): Filters {
  const filters: CumulativeFilter[] = [];
  for (const { identifierFilter: f } of input.cumulative ?? []) {
    if (!f || f.kind === 'Empty') continue;
    if (f.kind === 'WildcardFilter') {
      filters.push({ kind: 'wildcard', includeCreatedEventBlob: f.value.includeCreatedEventBlob ?? false });
      continue;
    }
    const [field, text] = f.kind === 'TemplateFilter' ? ['template_id', f.value.templateId] : ['interface_id', f.value.interfaceId];
    if (!text) throw ledgerErrors.missingField(field);
    const ref = parseIdentifier(text);
    if ('error' in ref) throw ledgerErrors.invalidField(field, `${ref.error} (in the filters of ${where})`);
    filters.push(
      f.kind === 'TemplateFilter'
        ? { kind: 'template', templateId: ref, includeCreatedEventBlob: f.value.includeCreatedEventBlob ?? false }
        : {
            kind: 'interface',
            interfaceId: ref,
            includeInterfaceView: f.value.includeInterfaceView ?? false,
            includeCreatedEventBlob: f.value.includeCreatedEventBlob ?? false,
          },
    );
  }
  // An empty list (or only Empty entries) is a template wildcard without blob.
  return filters.length ? filters : WILDCARD;
}

export interface TransactionByIdRequest {
  /** Validated later than the format: Canton checks rights before the id (UpdateServiceAuthorization). */
  updateId: string;
  format: TransactionFormat;
}

/** Exactly one of the two request forms (Canton's JSON layer checks this first). */
function checkRequestForm(body: Body): void {
  const parties = body.requestingParties ?? [];
  const tf = body.transactionFormat;
  if (tf && parties.length > 0) {
    throw ledgerErrors.invalidArgument(
      'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format, but not both.',
    );
  }
  if (!tf && parties.length === 0) {
    throw ledgerErrors.invalidArgument(
      'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
    );
  }
}

/**
 * The read rights a decoded request needs, taken from its raw format before the
 * format is validated: Canton checks claims first (UpdateServiceAuthorization.getUpdateById), so a caller
 * without the rights gets 403 even for a request that is otherwise malformed.
 */
export function requestedReadRights(body: Body): { parties: string[]; anyParty: boolean } {
  checkRequestForm(body);
  const ef = body.transactionFormat?.eventFormat;
  if (!body.transactionFormat) return { parties: body.requestingParties ?? [], anyParty: false };
  return {
    parties: Object.keys(ef?.filtersByParty ?? {}),
    anyParty: ef?.filtersForAnyParty !== undefined && ef?.filtersForAnyParty !== null,
  };
}

/** Step 2: the request's transaction format, or the LedgerError Canton gives. */
export function validateTransactionByIdBody(body: Body): TransactionByIdRequest {
  checkRequestForm(body);
  const parties = body.requestingParties ?? [];
  const tf = body.transactionFormat;
  const updateId = body.updateId ?? '';
  if (!tf) return { updateId, format: legacyTransactionFormat(parties) };

  const ef = tf.eventFormat;
  if (!ef) throw ledgerErrors.missingField('event_format');
  if (!tf.transactionShape || tf.transactionShape === 'TRANSACTION_SHAPE_UNSPECIFIED') throw ledgerErrors.missingField('transaction_shape');
  const byParty = Object.entries(ef.filtersByParty ?? {});
  if (byParty.length === 0 && !ef.filtersForAnyParty) {
    throw ledgerErrors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  return {
    updateId,
    format: {
      eventFormat: {
        filtersByParty: new Map(byParty.map(([party, filters]) => [party, cumulative(filters, `party ${party}`)])),
        filtersForAnyParty: ef.filtersForAnyParty ? cumulative(ef.filtersForAnyParty, 'any party') : undefined,
      },
      shape: tf.transactionShape,
    },
  };
}

/** An update id as Canton 3.4+ parses it (UpdateServiceRequestValidator.validateUpdateById): a SHA-256 multihash in hex, "1220" and 64 hex digits. */
const UPDATE_ID = /^1220[0-9a-fA-F]{64}$/;

/**
 * The update id, checked after rights as Canton does (UpdateServiceRequestValidator, UpdateServiceAuthorization): "" is
 * MISSING_FIELD; anything but a SHA-256 multihash is INVALID_ARGUMENT. Canton
 * says "Failed to parse hex string" when the text is not hex; for hex that is
 * no SHA-256 multihash (e.g. `ab`) its message depends on the bytes, so ours
 * states the expected form instead. Returns the id in lower case, as stored.
 */
export function checkUpdateId(updateId: string): string {
  if (updateId === '') throw ledgerErrors.missingField('update_id');
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(updateId)) throw ledgerErrors.invalidArgument(`Failed to parse hex string: ${updateId}`);
  if (!UPDATE_ID.test(updateId)) {
    throw ledgerErrors.invalidArgument(`Invalid update id ${updateId}: expected a SHA-256 multihash, 1220 followed by 64 hex digits`);
  }
  return updateId.toLowerCase();
}
