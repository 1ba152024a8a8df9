import type { z } from 'zod';
import type { ActivityRecord } from '../../../src/api/indexer/schemas';

/**
 * A row of `GET /api/indexer/v0/parties/{party}/activity`: the shape the API declares for it, its kind
 * widened to a string as the tests build rows from choice names.
 */
export type ActivityRow = Omit<z.output<typeof ActivityRecord>, 'kind'> & { kind: string };
