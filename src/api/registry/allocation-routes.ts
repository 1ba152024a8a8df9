/**
 * The token-standard allocation APIs for Amulet (reference allocation-instruction-v1.yaml,
 * allocation-v1.yaml, and Scan's HttpTokenStandardAllocation*Handler):
 *   POST /allocation-instruction/v1/allocation-factory      (its choice arguments are not read)
 *   POST /allocations/v1/{allocationId}/choice-contexts/execute-transfer | withdraw | cancel
 */
import { SPLICE } from '../../domain/splice-contracts';
import { allocationLock } from '../../domain/token-standard';
import { payloadOf } from '../../store/contract-repository';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { parseInput } from '../validation';
import { allocationFactory, tokenStandardContract, twoStepTransferContext } from './amulet-contexts';
import { ChoiceContextRequest, FactoryRequest } from './registry-input';
import { choiceContextFailures, type RegistryServices } from './registry-operations';
import { ChoiceContext, FactoryWithChoiceContext } from './schemas';

export const allocationOperations: readonly OperationOf<RegistryServices>[] = [
  operation({
    method: 'post',
    path: '/allocation-instruction/v1/allocation-factory',
    summary: 'The allocation factory (ExternalPartyAmuletRules) and the choice context for AllocationFactory_Allocate.',
    // Parsed by the handler: a missing body counts as `{}`.
    request: { body: FactoryRequest, bodyParsedBy: 'handler' },
    responses: { '200': { description: 'OK', body: FactoryWithChoiceContext }, ...choiceContextFailures },
    handle: async ({ db, config }: RegistryServices, _input, req, res) => {
      const body = parseInput(FactoryRequest, req.body ?? {}, 'body');
      const { factoryId, context } = await allocationFactory(db, config);
      sendJson(res, { factoryId, choiceContext: context.json(body.excludeDebugFields ?? false) });
    },
  }),

  // Executing moves the locked amulet (and can be featured for the settlement's executor).
  ...(
    [
      ['execute-transfer', true],
      ['withdraw', false],
      ['cancel', false],
    ] as const
  ).map(([choice, execute]) =>
    operation({
      method: 'post',
      path: `/allocations/v1/{allocationId}/choice-contexts/${choice}`,
      summary: `The choice context to ${choice} an AmuletAllocation.`,
      // Parsed by the handler: a missing body counts as `{}`.
      request: { body: ChoiceContextRequest, bodyParsedBy: 'handler' },
      responses: { '200': { description: 'OK', body: ChoiceContext }, ...choiceContextFailures },
      handle: async ({ db, config }: RegistryServices, { params }, req, res) => {
        const body = parseInput(ChoiceContextRequest, req.body ?? {}, 'body');
        const id = params.allocationId!;
        const allocation = await tokenStandardContract(db, SPLICE.amuletAllocation, id);
        const lock = allocationLock(payloadOf(allocation));
        const context = await twoStepTransferContext(db, config, `AmuletAllocation '${id}'`, lock, {
          requireLockedAmulet: execute,
          ...(execute ? { featuredProvider: lock.executor } : {}),
        });
        sendJson(res, context.json(body.excludeDebugFields ?? false));
      },
    }),
  ),
];
