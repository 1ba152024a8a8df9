/**
 * The token-standard transfer-instruction API for Amulet (`/registry/transfer-instruction/v1`,
 * reference transfer-instruction-v1.yaml and Scan's HttpTokenStandardTransferInstructionHandler):
 *   POST /transfer-factory
 *   POST /{transferInstructionId}/choice-contexts/accept | reject | withdraw
 */
import type { Response } from 'express';
import { SPLICE } from '../../domain/splice-contracts';
import { transferInstructionLock } from '../../domain/token-standard';
import { payloadOf } from '../../store/contract-repository';
import type { AnswerFamily } from '../../domain/answer-families';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { parseInput } from '../validation';
import { tokenStandardContract, transferFactory, twoStepTransferContext } from './amulet-contexts';
import { ChoiceContextRequest, FactoryRequest, transferParties } from './registry-input';
import { choiceContextFailures, type RegistryServices } from './registry-operations';
import { ChoiceContext, TransferFactoryWithChoiceContext } from './schemas';

const SELF_TRANSFER_FAMILIES: AnswerFamily[] = [
  'amuletRules',
  'rounds',
  'externalPartyAmuletRules',
  'externalPartyConfigState',
  'migration',
];
const TRANSFER_FAMILIES: AnswerFamily[] = [...SELF_TRANSFER_FAMILIES, 'transferParties'];

/**
 * The transfer factory's answer for a transfer between two parties (v1's sender and receiver, v2's
 * account owners). v2 calls a transfer between two accounts of one owner an offer, not a
 * transfer to oneself (`selfKind: false`): its context is the same, only the kind differs.
 */
export async function sendTransferFactory(
  { db, config, answers }: RegistryServices,
  res: Response,
  transfer: { sender: string; receiver: string },
  excludeDebugFields: boolean,
  selfKind = true,
): Promise<void> {
  const self = transfer.sender === transfer.receiver;
  const answer = await answers.get(
    db,
    'transfer-factory',
    self ? 'transfer-factory self' : `transfer-factory to ${transfer.receiver}`,
    self ? SELF_TRANSFER_FAMILIES : TRANSFER_FAMILIES,
    async (d) => {
      const factory = await transferFactory(d, config, transfer);
      return { value: factory, validUntil: factory.validUntil, keep: config.scanApp.clock === 'wall' };
    },
  );
  const form = `${excludeDebugFields ? 'short' : 'debug'}${self && !selfKind ? ' offer' : ''}`;
  sendJsonBytes(
    res,
    answer.bytes(form, ({ factoryId, transferKind, context }) => ({
      factoryId,
      transferKind: self && !selfKind ? 'offer' : transferKind,
      choiceContext: context.json(excludeDebugFields),
    })),
  );
}

/** Paths relative to /transfer-instruction/v1. */
export const transferInstructionOperations: readonly OperationOf<RegistryServices>[] = [
  // Kept per receiver (or for a transfer to oneself), which is all the answer takes from the
  // request besides the debug fields. With API_CLOCK=ledger, "now" moves with every batch, so
  // such answers are made per request.
  operation({
    method: 'post',
    path: '/transfer-factory',
    summary: 'The transfer factory (ExternalPartyAmuletRules), the kind of transfer, and the choice context for TransferFactory_Transfer.',
    // Parsed by the handler: a missing body counts as `{}`.
    request: { body: FactoryRequest, bodyParsedBy: 'handler' },
    responses: { '200': { description: 'OK', body: TransferFactoryWithChoiceContext }, ...choiceContextFailures },
    handle: async (services: RegistryServices, _input, req, res) => {
      const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
      await sendTransferFactory(services, res, transferParties(body.choiceArguments), body.excludeDebugFields ?? false);
    },
  }),

  ...instructionContextOperations('', '', twoStepTransferContext),
];

/**
 * The accept, reject and withdraw contexts of an AmuletTransferInstruction at `{prefix}/{id}/choice-contexts/…`,
 * each built by `contextOf` (the v1 or the v2 two-step context). Accepting moves the locked amulet, so it
 * needs it; rejecting and withdrawing work without it.
 */
export function instructionContextOperations(
  prefix: string,
  version: string,
  contextOf: typeof twoStepTransferContext,
): OperationOf<RegistryServices>[] {
  return (
    [
      ['accept', true],
      ['reject', false],
      ['withdraw', false],
    ] as const
  ).map(([choice, requireLockedAmulet]) =>
    operation<RegistryServices>({
      method: 'post',
      path: `${prefix}/{transferInstructionId}/choice-contexts/${choice}`,
      summary: `The ${version}choice context to ${choice} an AmuletTransferInstruction.`,
      // Parsed by the handler: a missing body counts as `{}`.
      request: { body: ChoiceContextRequest, bodyParsedBy: 'handler' },
      responses: { '200': { description: 'OK', body: ChoiceContext }, ...choiceContextFailures },
      handle: async ({ db, config }: RegistryServices, { params }, req, res) => {
        const body = parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
        const id = params.transferInstructionId!;
        const instruction = await tokenStandardContract(db, SPLICE.amuletTransferInstruction, id);
        const lock = transferInstructionLock(payloadOf(instruction));
        const context = await contextOf(db, config, `AmuletTransferInstruction '${id}'`, lock, { requireLockedAmulet });
        sendJson(res, context.json(body.excludeDebugFields ?? false));
      },
    }),
  );
}
