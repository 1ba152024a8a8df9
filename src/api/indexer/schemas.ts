/**
 * The answers of this indexer's own operations (router.ts). The web UI takes its types from here
 * (type-only imports), so that the page and the server read one description of each answer.
 */
import { z } from 'zod';
import { dateTime, decimal, int64 } from '../schema-kit';

export const SnapshotsPage = z.object({
  snapshots: z.array(
    z.object({
      migration_id: int64(),
      record_time: dateTime('As /v0/state/acs/snapshot-timestamp reports it.'),
      contract_count: int64('Active contracts in the snapshot.'),
      unlocked_amulet: decimal('Sum of the Amulet amounts (as created, before holding fees).'),
      locked_amulet: decimal('Sum of the LockedAmulet amounts (as created, before holding fees).'),
    }),
  ),
  next_page_token: z.string().nullable().describe('Set when the page is full: pass it as page_token for the next page.'),
});

export const HourlyUpdates = z.object({
  migration_id: int64('Null when the database holds no update.').nullable(),
  buckets: z
    .array(z.object({ hour: dateTime('Start of the UTC hour.'), updates: int64() }))
    .describe('As many as hours asked for; empty when migration_id is null.'),
});
