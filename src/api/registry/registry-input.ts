/**
 * Request bodies of the token-standard registry (transfer-instruction-v1.yaml,
 * allocation-instruction-v1.yaml, allocation-v1.yaml), and the factory choice
 * argument Scan decodes from a transfer-factory request (TransferFactory_Transfer,
 * in the Daml JSON encoding wallets send).
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
