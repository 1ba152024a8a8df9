/**
 * The token-standard registry API for Amulet, mounted at /registry and, behind the proxy's
 * authentication, at the validator's /v0/scan-proxy/registry.
 */
import express, { Router } from 'express';
import { answerCacheOf, type ApiContext } from '../context';
import { rejectNulCharacters } from '../nul-guard';
import { mountOperations, type OperationOf } from '../operation';
import { allocationOperations } from './allocation-routes';
import { metadataOperations } from './metadata-routes';
import type { RegistryServices } from './registry-operations';
import { registryV2Operations } from './registry-v2-routes';
import { transferInstructionOperations } from './transfer-instruction-routes';

/**
 * The registry's parts, each a router of its own at its mount (so that a route's template, which
 * metrics label requests with, is the part's), in the order a request walks them.
 */
const PARTS: readonly { mount: string; operations: readonly OperationOf<RegistryServices>[] }[] = [
  { mount: '/metadata/v1', operations: metadataOperations },
  { mount: '/transfer-instruction/v1', operations: transferInstructionOperations },
  { mount: '', operations: allocationOperations },
  { mount: '', operations: registryV2Operations },
];

/** Every operation of the registry, with its path relative to the registry's mount. */
export const registryOperations: readonly OperationOf<RegistryServices>[] = PARTS.flatMap(({ mount, operations }) =>
  operations.map((op) => ({ ...op, path: `${mount}${op.path}` })),
);

export function registryRouter(context: ApiContext): Router {
  const services: RegistryServices = { db: context.db, config: context.config, answers: answerCacheOf(context) };
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);
  for (const { mount, operations } of PARTS) {
    const part = mountOperations(Router(), operations, services);
    if (mount === '') router.use(part);
    else router.use(mount, part);
  }
  return router;
}
