/**
 * The token-standard registry's v2 operations for Amulet (transfer-instruction-v2.yaml,
 * allocation-instruction-v2.yaml and allocation-v2.yaml; Scan's v2 token-standard handlers):
 *   POST /transfer-instruction/v2/transfer-factory
 *   POST /transfer-instruction/v2/{transferInstructionId}/choice-contexts/accept | reject | withdraw
 *   POST /allocation-instruction/v2/allocation-factory
 *   POST /allocation-instruction/v2/{allocationInstructionId}/choice-contexts/accept | withdraw
 *   POST /allocation/v2/settlement-factory        (the specification's singular "allocation")
 *   POST /allocations/v2/{allocationId}/choice-contexts/withdraw | cancel
 * Their requests and answers have v1's shapes. The transfer factory's context is v1's; the two-step
 * contexts are the v2 ones (twoStepTransferContextV2). The two V2 factories decode their choice
 * arguments (a 400 when they are not an AllocationFactory_Allocate or SettlementFactory_SettleBatch, or
 * are over the configured limits on legs and parties) and answer the factory disclosed, the settlement
 * factory with the locked amulets of the batch's allocations after it. An allocation's choices are
 * served for AmuletAllocationV2 and v1 AmuletAllocation contracts. Amulet makes no allocation
 * instructions, so their choice contexts are a 400, as on Scan.
 */
import { z } from 'zod';
import { allocateSize, settleBatchSize, sizeRefusal } from '../../domain/token-standard';
import { badRequest } from '../../internal/errors';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { parseInput } from '../validation';
import { allocationFactoryV2, allocationV2OrV1Lock, settlementFactory, twoStepTransferContextV2 } from './amulet-contexts';
import { allocateArgumentsV2, ChoiceContextRequest, FactoryRequest, settleBatchArguments } from './registry-input';
import { choiceContextFailures, type RegistryServices } from './registry-operations';
import { ChoiceContext, FactoryWithChoiceContext, TransferFactoryWithChoiceContext } from './schemas';
import { instructionContextOperations, sendTransferFactory } from './transfer-instruction-routes';

const party = z
  .string({ error: 'expected a party' })
  .regex(/^\S{1,255}::\S{1,255}$/, { error: 'expected a party id <name>::<fingerprint>' });
const account = z.looseObject({ owner: party }, { error: 'expected an account' });

/** What the v2 transfer factory reads of a TransferFactory_Transfer: the two accounts. */
const TransferFactoryTransferV2 = z.looseObject(
  { transfer: z.looseObject({ sender: account, receiver: account }, { error: 'expected a transfer' }) },
  { error: 'expected an object' },
);

/** Canonical JSON (keys sorted), to compare two accounts as Daml compares records. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v !== null && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

function transferAccounts(choiceArguments: unknown): { sender: string; receiver: string; sameAccount: boolean } {
  const parsed = TransferFactoryTransferV2.safeParse(choiceArguments);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw badRequest(`Field \`choiceArguments\` does not contain a valid \`TransferFactory_Transfer\`: ${issue.message}${at}`);
  }
  const { sender, receiver } = parsed.data.transfer;
  return { sender: sender.owner, receiver: receiver.owner, sameAccount: canonical(sender) === canonical(receiver) };
}

const NO_ALLOCATION_INSTRUCTIONS =
  'Allocation instruction choice contexts are unsupported because amulet does not create allocation instructions.';

/** Paths relative to the registry's mount. */
export const registryV2Operations: readonly OperationOf<RegistryServices>[] = [
  operation({
    method: 'post',
    path: '/transfer-instruction/v2/transfer-factory',
    summary:
      "The transfer factory (ExternalPartyAmuletRules), the kind of transfer, and the choice context for the v2 TransferFactory_Transfer (between account owners; one owner's two different accounts make an offer).",
    // Parsed by the handler: a missing body counts as `{}`.
    request: { body: FactoryRequest, bodyParsedBy: 'handler' },
    responses: { '200': { description: 'OK', body: TransferFactoryWithChoiceContext }, ...choiceContextFailures },
    handle: async (services: RegistryServices, _input, req, res) => {
      const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
      const { sender, receiver, sameAccount } = transferAccounts(body.choiceArguments);
      await sendTransferFactory(services, res, { sender, receiver }, body.excludeDebugFields ?? false, sameAccount);
    },
  }),

  ...instructionContextOperations('/transfer-instruction/v2', 'v2 ', twoStepTransferContextV2),

  operation({
    method: 'post',
    path: '/allocation-instruction/v2/allocation-factory',
    summary:
      'The allocation factory (ExternalPartyAmuletRules) for the V2 AllocationFactory_Allocate, whose choice arguments are checked and held to the limits on legs and parties.',
    // Parsed by the handler: a missing body counts as `{}`.
    request: { body: FactoryRequest, bodyParsedBy: 'handler' },
    responses: { '200': { description: 'OK', body: FactoryWithChoiceContext }, ...choiceContextFailures },
    handle: async ({ db, config }: RegistryServices, _input, req, res) => {
      const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
      const allocate = allocateArgumentsV2(body.choiceArguments);
      const refusal = sizeRefusal(allocateSize(allocate.allocation.transferLegSides), config.scanApp.tokenStandardSettlement);
      if (refusal !== undefined) throw badRequest(refusal);
      const { factoryId, context } = await allocationFactoryV2(db, config);
      sendJson(res, { factoryId, choiceContext: context.json(body.excludeDebugFields ?? false) });
    },
  }),

  ...(['accept', 'withdraw'] as const).map((choice) =>
    operation({
      method: 'post',
      path: `/allocation-instruction/v2/{allocationInstructionId}/choice-contexts/${choice}`,
      summary: `Always a 400: Amulet makes no allocation instructions to ${choice}.`,
      // Parsed by the handler: a missing body counts as `{}`.
      request: { body: ChoiceContextRequest, bodyParsedBy: 'handler' },
      responses: { '200': { description: 'OK (never, for Amulet)', body: ChoiceContext }, ...choiceContextFailures },
      handle: (_services: RegistryServices, _input, req) => {
        parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
        throw badRequest(NO_ALLOCATION_INSTRUCTIONS);
      },
    }),
  ),

  operation({
    method: 'post',
    path: '/allocation/v2/settlement-factory',
    summary:
      'The settlement factory (ExternalPartyAmuletRules) for SettlementFactory_SettleBatch, with the live locked amulets of the AmuletAllocationV2 and AmuletAllocation contracts it settles disclosed.',
    // Parsed by the handler: a missing body counts as `{}`.
    request: { body: FactoryRequest, bodyParsedBy: 'handler' },
    responses: { '200': { description: 'OK', body: FactoryWithChoiceContext }, ...choiceContextFailures },
    handle: async ({ db, config }: RegistryServices, _input, req, res) => {
      const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
      const batch = settleBatchArguments(body.choiceArguments);
      const refusal = sizeRefusal(settleBatchSize(batch.transferLegs), config.scanApp.tokenStandardSettlement);
      if (refusal !== undefined) throw badRequest(refusal);
      const allocationIds = batch.allocations.map((a) => a.allocationCid);
      const { factoryId, context } = await settlementFactory(db, config, allocationIds);
      sendJson(res, { factoryId, choiceContext: context.json(body.excludeDebugFields ?? false) });
    },
  }),

  ...(['withdraw', 'cancel'] as const).map((choice) =>
    operation({
      method: 'post',
      path: `/allocations/v2/{allocationId}/choice-contexts/${choice}`,
      summary: `The v2 choice context to ${choice} an AmuletAllocationV2 or an AmuletAllocation.`,
      // Parsed by the handler: a missing body counts as `{}`.
      request: { body: ChoiceContextRequest, bodyParsedBy: 'handler' },
      responses: { '200': { description: 'OK', body: ChoiceContext }, ...choiceContextFailures },
      handle: async ({ db, config }: RegistryServices, { params }, req, res) => {
        const body = parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
        const id = params.allocationId!;
        const lock = await allocationV2OrV1Lock(db, id);
        const context = await twoStepTransferContextV2(db, config, `AmuletAllocation '${id}'`, lock, { requireLockedAmulet: false });
        sendJson(res, context.json(body.excludeDebugFields ?? false));
      },
    }),
  ),
];
