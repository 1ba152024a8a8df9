/**
 * Request bodies of the token-standard registry (transfer-instruction-v1.yaml,
 * allocation-instruction-v1.yaml, allocation-v1.yaml), and the factory choice
 * arguments Scan decodes from a factory request, in the Daml JSON encoding wallets send:
 * TransferFactory_Transfer, and token standard V2's AllocationFactory_Allocate
 * (AllocationInstructionV2) and SettlementFactory_SettleBatch (AllocationV2).
 */
import { z } from 'zod';
import { badRequest } from '../../internal/errors';

const excludeDebugFields = z.boolean({ error: 'expected a boolean' }).nullish();

/** GetFactoryRequest. */
export const FactoryRequest = z
  .object({
    choiceArguments: z
      .record(z.string(), z.unknown(), { error: 'expected an object' })
      .describe("The factory choice's arguments in Daml JSON, with empty extraArgs.context and extraArgs.meta."),
    // Documented as the interface has it; null is taken as absent.
    excludeDebugFields: excludeDebugFields.meta({
      anyOf: undefined,
      type: 'boolean',
      description: 'Leave the debug fields out of the disclosed contracts (default false).',
    }),
  })
  .meta({ id: 'GetFactoryRequest' });

/** GetChoiceContextRequest: every field optional; a missing body counts as `{}`. */
export const ChoiceContextRequest = z
  .object({
    meta: z
      .record(z.string(), z.string({ error: 'expected a string' }), { error: 'expected an object of strings' })
      .nullish()
      .meta({ anyOf: undefined, type: 'object', additionalProperties: { type: 'string' } }),
    excludeDebugFields: excludeDebugFields.meta({ anyOf: undefined, type: 'boolean', description: 'Default false.' }),
  })
  .meta({ id: 'GetChoiceContextRequest' });

const party = z
  .string({ error: 'expected a party' })
  .regex(/^\S{1,255}::\S{1,255}$/, { error: 'expected a party id <name>::<fingerprint>' });
const time = z.string({ error: 'expected a time' }).refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO 8601 time' });
const decimal = z.union([z.string().regex(/^-?\d+(\.\d+)?$/), z.number()], { error: 'expected a decimal' });
const textMap = z.object(
  { values: z.record(z.string(), z.unknown(), { error: 'expected an object' }) },
  { error: 'expected {"values": …}' },
);

const TransferFactoryTransfer = z.object({
  expectedAdmin: party,
  transfer: z.object({
    sender: party,
    receiver: party,
    amount: decimal,
    instrumentId: z.object({ admin: party, id: z.string({ error: 'expected a string' }) }),
    requestedAt: time,
    executeBefore: time,
    inputHoldingCids: z.array(z.string({ error: 'expected a contract id' }), { error: 'expected a list of contract ids' }),
    meta: textMap,
  }),
  extraArgs: z.object({ context: textMap, meta: textMap }),
});

/** The sender and receiver of a TransferFactory_Transfer, or Scan's 400 naming what is wrong. */
export function transferParties(choiceArguments: unknown): { sender: string; receiver: string } {
  const parsed = TransferFactoryTransfer.safeParse(choiceArguments);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw badRequest(`Field \`choiceArguments\` does not contain a valid \`TransferFactory_Transfer\`: ${issue.message}${at}`);
  }
  return { sender: parsed.data.transfer.sender, receiver: parsed.data.transfer.receiver };
}

// Token standard V2 (Splice.Api.Token.HoldingV2, AllocationV2, AllocationInstructionV2). An Optional is
// null or left out; extra keys are ignored.
const optional = <T extends z.ZodType>(schema: T) => schema.nullish();
const contractId = z.string({ error: 'expected a contract id' });
const text = z.string({ error: 'expected a string' });
const metadataV1 = z.object(
  { values: z.record(z.string(), z.string({ error: 'expected a string' }), { error: 'expected an object of strings' }) },
  { error: 'expected {"values": …}' },
);
const accountV2 = z.object({ owner: optional(party), provider: optional(party), id: text }, { error: 'expected an account' });
const settlementInfo = z.object(
  { executors: z.array(party, { error: 'expected a list of parties' }), id: text, cid: optional(contractId), meta: metadataV1 },
  { error: 'expected a settlement' },
);
const transferLegSide = z.object(
  {
    transferLegId: text,
    side: z.enum(['SenderSide', 'ReceiverSide'], { error: 'expected SenderSide or ReceiverSide' }),
    otherside: accountV2,
    amount: decimal,
    instrumentId: text,
    meta: metadataV1,
  },
  { error: 'expected a transfer leg side' },
);
const transferLegSides = z.array(transferLegSide, { error: 'expected a list of transfer leg sides' });
const funding = optional(z.record(z.string(), decimal, { error: 'expected an object of decimals' }));
const extraArgs = z.object({ context: textMap, meta: metadataV1 }, { error: 'expected {"context": …, "meta": …}' });
const parties = z.array(party, { error: 'expected a list of parties' });

const SettlementFactorySettleBatch = z.object(
  {
    settlement: settlementInfo,
    transferLegs: z.array(
      z.object(
        { transferLegId: text, sender: accountV2, receiver: accountV2, amount: decimal, instrumentId: text, meta: metadataV1 },
        { error: 'expected a transfer leg' },
      ),
      { error: 'expected a list of transfer legs' },
    ),
    allocations: z.array(
      z.object(
        { allocationCid: contractId, extraTransferLegSides: transferLegSides, nextIterationFunding: funding },
        { error: 'expected a finalized allocation' },
      ),
      { error: 'expected a list of finalized allocations' },
    ),
    actors: parties,
    extraArgs,
  },
  { error: 'expected an object' },
);

const AllocationFactoryAllocate = z.object(
  {
    settlement: settlementInfo,
    allocation: z.object(
      {
        admin: party,
        authorizer: accountV2,
        transferLegSides,
        settlementDeadline: optional(time),
        nextIterationFunding: funding,
        committed: z.boolean({ error: 'expected a boolean' }),
        meta: metadataV1,
      },
      { error: 'expected an allocation specification' },
    ),
    requestedAt: time,
    inputHoldingCids: z.array(contractId, { error: 'expected a list of contract ids' }),
    extraArgs,
    actors: parties,
  },
  { error: 'expected an object' },
);

/** The choice arguments of a V2 factory, or Scan's 400 naming the choice and what is wrong. */
function choiceArgumentsOf<T extends z.ZodType>(schema: T, choice: string, choiceArguments: unknown): z.infer<T> {
  const parsed = schema.safeParse(choiceArguments);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw badRequest(`Field \`choiceArguments\` does not contain a valid \`${choice}\`: ${issue.message}${at}`);
  }
  return parsed.data;
}

/** SettlementFactory_SettleBatch (AllocationV2). */
export const settleBatchArguments = (choiceArguments: unknown) =>
  choiceArgumentsOf(SettlementFactorySettleBatch, 'SettlementFactory_SettleBatch', choiceArguments);

/** AllocationFactory_Allocate of AllocationInstructionV2. */
export const allocateArgumentsV2 = (choiceArguments: unknown) =>
  choiceArgumentsOf(AllocationFactoryAllocate, 'AllocationFactory_Allocate', choiceArguments);
