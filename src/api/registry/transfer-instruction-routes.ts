/**
 * The token-standard transfer-instruction API for Amulet (`/registry/transfer-instruction/v1`,
 * reference transfer-instruction-v1.yaml and Scan's HttpTokenStandardTransferInstructionHandler):
 *   POST /transfer-factory
 *   POST /{transferInstructionId}/choice-contexts/accept | reject | withdraw
 */
import { Router } from 'express';
import { SPLICE } from '../../domain/splice-contracts';
import { transferInstructionLock } from '../../domain/token-standard';
import { payloadOf } from '../../store/contract-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { parseInput } from '../validation';
import { tokenStandardContract, transferFactory, twoStepTransferContext } from './amulet-contexts';
import { ChoiceContextRequest, FactoryRequest, transferParties } from './registry-input';

export function transferInstructionRoutes({ db, config }: ApiContext): Router {
  const router = Router();

  router.post('/transfer-factory', async (req, res) => {
    const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
    const { factoryId, transferKind, context } = await transferFactory(db, config, transferParties(body.choiceArguments));
    sendJson(res, { factoryId, transferKind, choiceContext: context.json(body.excludeDebugFields ?? false) });
  });

  // Accepting moves the locked amulet, so it needs it; rejecting and withdrawing work without it.
  for (const [choice, requireLockedAmulet] of [
    ['accept', true],
    ['reject', false],
    ['withdraw', false],
  ] as const) {
    router.post(`/:transferInstructionId/choice-contexts/${choice}`, async (req, res) => {
      const body = parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
      const id = req.params.transferInstructionId;
      const instruction = await tokenStandardContract(db, SPLICE.amuletTransferInstruction, id);
      const lock = transferInstructionLock(payloadOf(instruction));
      const context = await twoStepTransferContext(db, config, `AmuletTransferInstruction '${id}'`, lock, { requireLockedAmulet });
      sendJson(res, context.json(body.excludeDebugFields ?? false));
    });
  }

  return router;
}
