/**
 * The body of POST /v2/updates/update-by-id, which replaces transaction-by-id from Canton 3.4:
 * `{updateId, updateFormat}`. Decoded as leniently as transaction-by-id (./transaction-request.ts),
 * then validated in Canton's order (UpdateServiceRequestValidator.validateUpdateById, FormatValidator):
 * the update id, the presence of the update format, then its transaction, reassignment and topology parts.
 */
import { z } from 'zod';
import type { EventFormat, TransactionFormat } from '../../domain/ledger-filters';
import { ledgerErrors } from './errors';
import { checkUpdateId, cumulative, decodeLedgerBody, eventFormatSchema, transactionFormatSchema } from './transaction-request';

const bodySchema = z.object({
  updateId: z.string().nullish(),
  updateFormat: z
    .object({
      includeTransactions: transactionFormatSchema.nullish(),
      includeReassignments: eventFormatSchema.nullish(),
      includeTopologyEvents: z
        .object({ includeParticipantAuthorizationEvents: z.object({ parties: z.array(z.string()).nullish() }).nullish() })
        .nullish(),
    })
    .nullish(),
});

type Body = z.output<typeof bodySchema>;
type EventFormatInput = z.output<typeof eventFormatSchema>;

export interface UpdateByIdRequest {
  /** In lower case, as stored. */
  updateId: string;
  /** Each part absent when the format does not ask for that kind of update. */
  transactions: TransactionFormat | undefined;
  reassignments: EventFormat | undefined;
  topologyEvents: boolean;
}

/** Step 1: the raw body text to the decoded request, or UndecodableRequest (400 text/plain). */
export function decodeUpdateByIdBody(text: string): Body {
  return decodeLedgerBody(bodySchema, text);
}

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

function eventFormatRights(ef: EventFormatInput | null | undefined): { parties: string[]; anyParty: boolean } {
  return { parties: Object.keys(ef?.filtersByParty ?? {}), anyParty: present(ef?.filtersForAnyParty) };
}

/**
 * The read rights the update format asks for, from the raw body before it is validated: Canton checks
 * claims first (RequiredClaims.updateFormatClaims). Topology events for an empty party list need ReadAsAnyParty.
 */
export function updateByIdReadRights(body: Body): { parties: string[]; anyParty: boolean } {
  const format = body.updateFormat;
  const parts = [eventFormatRights(format?.includeTransactions?.eventFormat), eventFormatRights(format?.includeReassignments)];
  const topology = format?.includeTopologyEvents?.includeParticipantAuthorizationEvents;
  if (present(topology)) {
    const parties = topology.parties ?? [];
    parts.push({ parties, anyParty: parties.length === 0 });
  }
  return { parties: [...new Set(parts.flatMap((p) => p.parties))], anyParty: parts.some((p) => p.anyParty) };
}

function validateEventFormat(ef: EventFormatInput): EventFormat {
  const byParty = Object.entries(ef.filtersByParty ?? {});
  if (byParty.length === 0 && !present(ef.filtersForAnyParty)) {
    throw ledgerErrors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  return {
    filtersByParty: new Map(byParty.map(([party, filters]) => [party, cumulative(filters, `party ${party}`)])),
    filtersForAnyParty: ef.filtersForAnyParty ? cumulative(ef.filtersForAnyParty, 'any party') : undefined,
  };
}

/** Step 2: the validated request, or the LedgerError Canton gives. */
export function validateUpdateByIdBody(body: Body): UpdateByIdRequest {
  const updateId = checkUpdateId(body.updateId ?? '');
  const format = body.updateFormat;
  if (!present(format)) throw ledgerErrors.missingField('update_format');
  let transactions: TransactionFormat | undefined;
  const tf = format.includeTransactions;
  if (present(tf)) {
    // The shape before the event format, as FormatValidator.validate(TransactionFormat) checks them.
    if (!tf.transactionShape || tf.transactionShape === 'TRANSACTION_SHAPE_UNSPECIFIED')
      throw ledgerErrors.missingField('transaction_shape');
    if (!present(tf.eventFormat)) throw ledgerErrors.missingField('event_format');
    transactions = { eventFormat: validateEventFormat(tf.eventFormat), shape: tf.transactionShape };
  }
  const reassignments = present(format.includeReassignments) ? validateEventFormat(format.includeReassignments) : undefined;
  return {
    updateId,
    transactions,
    reassignments,
    topologyEvents: present(format.includeTopologyEvents?.includeParticipantAuthorizationEvents),
  };
}
