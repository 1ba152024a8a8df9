/**
 * The token-standard allocation APIs for Amulet (reference allocation-instruction-v1.yaml,
 * allocation-v1.yaml, and Scan's HttpTokenStandardAllocation*Handler):
 *   POST /allocation-instruction/v1/allocation-factory      (its choice arguments are not read)
 *   POST /allocations/v1/{allocationId}/choice-contexts/execute-transfer | withdraw | cancel
 */
import { Router } from 'express';
import { SPLICE } from '../../domain/splice-contracts';
import { allocationLock } from '../../domain/token-standard';
import { payloadOf } from '../../store/contract-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { parseInput } from '../validation';
import { allocationFactory, tokenStandardContract, twoStepTransferContext } from './amulet-contexts';
import { ChoiceContextRequest, FactoryRequest } from './registry-input';

export function allocationRoutes({ db, config }: ApiContext): Router {
  const router = Router();

  router.post('/allocation-instruction/v1/allocation-factory', async (req, res) => {
    const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
    const { factoryId, context } = await allocationFactory(db, config);
    sendJson(res, { factoryId, choiceContext: context.json(body.excludeDebugFields ?? false) });
  });

  // Executing moves the locked amulet (and can be featured for the settlement's executor).
  for (const [choice, execute] of [
    ['execute-transfer', true],
    ['withdraw', false],
    ['cancel', false],
  ] as const) {
    router.post(`/allocations/v1/:allocationId/choice-contexts/${choice}`, async (req, res) => {
      const body = parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
      const id = req.params.allocationId;
      const allocation = await tokenStandardContract(db, SPLICE.amuletAllocation, id);
      const lock = allocationLock(payloadOf(allocation));
      const context = await twoStepTransferContext(db, config, `AmuletAllocation '${id}'`, lock, {
        requireLockedAmulet: execute,
        ...(execute ? { featuredProvider: lock.executor } : {}),
      });
      sendJson(res, context.json(body.excludeDebugFields ?? false));
    });
  }

  return router;
}
