/** S16: the DSO party, from the newest live DsoRules, else from network facts. */
import { parseTimestamp } from '../../../src/domain/time';
import { markChangedFamilies } from '../../../src/store/answer-versions-repository';
import { setNetworkFact } from '../../../src/store/network-repository';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const DSO = 'DSO::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';

async function insertDsoRules(t: ReturnType<typeof useTestDatabase>, migrationId: number, dso: string, archived = false) {
  await t.db
    .insertInto('contracts')
    .values({
      migration_id: migrationId,
      contract_id: `00dsorules${migrationId}${archived ? 'a' : ''}`,
      template_id: '1790a114f83d5f290261fae1e7e46fba75a861a3dd603c6b4ef6b67b49053948:Splice.DsoRules:DsoRules',
      package_name: 'splice-dso-governance',
      qualified_name: 'Splice.DsoRules:DsoRules',
      create_arguments: JSON.stringify({ dso }),
      created_at: '2025-03-10T14:00:00Z',
      signatories: [dso],
      observers: [],
      created_in_update_id: 'u1',
      created_record_time: '2025-03-10T14:00:00.000001Z',
      archived_record_time: archived ? '2025-03-10T15:00:00Z' : undefined,
      dso_party: dso,
    })
    .execute();
  // Written here behind the writer's back: marked changed as the writer marks what it writes, so kept answers go.
  await markChangedFamilies(t.db, ['dso']);
}

describe('the DSO party id', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    // The month partitions of the archived row below (the writer makes them as it ingests).
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp('2025-03-10T15:00:00Z') }]);
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api.close();
  });

  it('serves the DSO party id from the ACS, 404 while none is known', async () => {
    const none = await request(api.url, 'GET', '/api/scan/v0/dso-party-id');
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ error: 'No DSO party is known yet: no DsoRules contract has been ingested.' });

    await setNetworkFact(t.db, 'dso_party_id', 'DSO::1220fromfacts');
    expect(await request(api.url, 'GET', '/api/scan/v0/dso-party-id')).toMatchObject({
      status: 200,
      text: '{"dso_party_id":"DSO::1220fromfacts"}',
    });

    await insertDsoRules(t, 0, 'DSO::1220archived', true);
    await insertDsoRules(t, 3, DSO);
    expect(await request(api.url, 'GET', '/api/scan/v0/dso-party-id')).toMatchObject({ status: 200, text: `{"dso_party_id":"${DSO}"}` });
  });
});
