/** This indexer's own read-only operations (/api/indexer) in the OpenAPI document; no Scan serves them. */
import { array, dateTime, decimal, int32, int64, json, nullable, object, queryParam, ref, str } from './builders';

const clientMistake = json(ref('ErrorResponse'), 'A client mistake (a page size or hours out of range, an altered or foreign page token).');

export const indexerPaths = {
  '/v0/acs-snapshots': {
    get: {
      summary:
        'The announced ACS snapshots with their figures, newest first across migrations (migration_id, then record_time, descending).',
      parameters: [
        queryParam('page_size', { ...int32(), minimum: 1, maximum: 1000, default: 100 }, false),
        queryParam('page_token', str(), false, 'next_page_token of the previous page, with the same page_size.'),
      ],
      responses: {
        '200': json(
          object({
            snapshots: array(
              object({
                migration_id: int64(),
                record_time: dateTime('As /v0/state/acs/snapshot-timestamp reports it.'),
                contract_count: int64('Active contracts in the snapshot.'),
                unlocked_amulet: decimal('Sum of the Amulet amounts (as created, before holding fees).'),
                locked_amulet: decimal('Sum of the LockedAmulet amounts (as created, before holding fees).'),
              }),
            ),
            next_page_token: nullable(str('Set when the page is full: pass it as page_token for the next page.')),
          }),
        ),
        '400': clientMistake,
      },
    },
  },
  '/v0/updates-per-hour': {
    get: {
      summary:
        'Updates (transactions and reassignments, not import updates) per UTC hour of record time in the newest migration that has any, over the hours ending with the hour of its newest update, oldest first, hours without updates included.',
      parameters: [queryParam('hours', { ...int32(), minimum: 1, maximum: 168, default: 24 }, false)],
      responses: {
        '200': json(
          object({
            migration_id: nullable(int64('Null when the database holds no update.')),
            buckets: array(object({ hour: dateTime('Start of the UTC hour.'), updates: int64() }), {
              description: 'As many as hours asked for; empty when migration_id is null.',
            }),
          }),
        ),
        '400': clientMistake,
      },
    },
  },
};
