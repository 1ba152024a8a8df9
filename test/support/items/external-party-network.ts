/**
 * A simulated network (which has preapprovals, counters, commands, licenses
 * and coupons of its own) continued by hand-built cases the simulator makes
 * rarely or never: a receiver's TransferPreapproval (created, then renewed), a
 * sender's TransferCommandCounter, two UnclaimedDevelopmentFundCoupons and
 * three ValidatorLicenses (one withdrawn, one with faucets collected), and
 * bob's TransferCommands: nonce 3 sent (and reused by a later command still
 * waiting), nonce 4 failed, nonce 5 withdrawn, nonce 6 waiting. For the tests of the endpoints
 * that serve them, on Scan, on the scan-proxy and through Splice's clients.
 */
import type { CanonicalItem, ExercisedEvent, TreeEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { arg, ofTemplate, replay } from '../replays/live-acs';
import { after, archiveEvent, createEvent, tx } from './network-items';
import { simulatedItems } from './simulated-network';

export const alice = 'alice::1220aaaa000000000000000000000000000000000000000000000000000000000000';
export const bob = 'bob::1220bbbb000000000000000000000000000000000000000000000000000000000000';
export const provider = 'validator-1::1220cccc00000000000000000000000000000000000000000000000000000000000';

export function externalPartyNetwork(): CanonicalItem[] {
  const sim = [...simulatedItems({ seed: 41, updates: 1500, meanUpdateGapMs: 20_000, migrations: 1 })];
  const base = replay(sim);
  const rules = ofTemplate(base, 'Splice.AmuletRules:AmuletRules').at(-1)!;
  const dso = arg(rules, 'dso') as string;
  const sync = rules.synchronizerId!;
  const migration = base.currentMigration;
  const last = base.latestRecordTime;
  const pkg = {
    packageName: 'splice-amulet',
    templateId: (entity: string) => rules.event.template_id.replace(/:[^:]+:[^:]+$/, `:${entity}`),
  };
  const like = (entity: string) => ({ templateId: pkg.templateId(entity), packageName: pkg.packageName });

  const preapproval = (id: string, at: string, expiresAt: string): Json => ({
    dso,
    receiver: alice,
    provider,
    validFrom: at,
    lastRenewedAt: at,
    expiresAt,
    description: null,
  });
  // The provider's license has collected faucets from round 5 to 12, missing two of them.
  const license = (validator: string, at: string): Json => ({
    validator,
    sponsor: provider,
    dso,
    faucetState:
      validator === provider ? { firstReceivedFor: { number: '5' }, lastReceivedFor: { number: '12' }, numCouponsMissed: '2' } : null,
    metadata: { version: '0.5.0', contactPoint: 'ops@example.org', lastUpdatedAt: at },
    lastActiveAt: at,
  });
  const items: CanonicalItem[] = [...sim];
  const t1 = after(last, 1);
  const t2 = after(last, 2);
  const t3 = after(last, 3);
  items.push(
    tx('hand-preapproval-1', t1, migration, sync, [
      createEvent(
        'hand-preapproval-1',
        0,
        like('Splice.AmuletRules:TransferPreapproval'),
        '00preapproval-1',
        preapproval('1', t1, '2030-01-01T00:00:00Z'),
        t1,
        [alice, provider, dso],
      ),
      {
        ...createEvent(
          'hand-preapproval-1',
          1,
          like('Splice.ExternalPartyAmuletRules:TransferCommandCounter'),
          '00counter-bob',
          { dso, sender: bob, nextNonce: '3' },
          t1,
          [dso],
        ),
        observers: [bob],
      },
      createEvent(
        'hand-preapproval-1',
        2,
        like('Splice.Amulet:UnclaimedDevelopmentFundCoupon'),
        '00coupon-1',
        { dso, amount: '1000.0000000000' },
        t1,
        [dso],
      ),
    ]),
  );
  // A renewal archives the first preapproval and creates the second; a second coupon.
  const first = () =>
    ofTemplate(replay(items), 'Splice.AmuletRules:TransferPreapproval').find((c) => c.event.contract_id === '00preapproval-1')!;
  items.push(
    tx('hand-renewal', t2, migration, sync, [
      archiveEvent('hand-renewal', 0, first(), alice),
      createEvent(
        'hand-renewal',
        1,
        like('Splice.AmuletRules:TransferPreapproval'),
        '00preapproval-2',
        preapproval('2', t2, '2031-01-01T00:00:00Z'),
        t2,
        [alice, provider, dso],
      ),
    ]),
    tx('hand-coupon-2', t3, migration, sync, [
      createEvent(
        'hand-coupon-2',
        0,
        like('Splice.Amulet:UnclaimedDevelopmentFundCoupon'),
        '00coupon-2',
        { dso, amount: '2.5000000000' },
        t3,
        [dso],
      ),
      ...[alice, bob, provider].map((validator, i) => ({
        ...createEvent(
          'hand-coupon-2',
          i + 1,
          like('Splice.ValidatorLicense:ValidatorLicense'),
          `00license-${i}`,
          license(validator, t3),
          t3,
          [dso],
        ),
        observers: [validator],
      })),
    ]),
  );
  const licenseOf = (id: string) =>
    ofTemplate(replay(items), 'Splice.ValidatorLicense:ValidatorLicense').find((c) => c.event.contract_id === id)!;
  items.push(
    tx('hand-license-withdrawn', after(last, 4), migration, sync, [
      archiveEvent('hand-license-withdrawn', 0, licenseOf('00license-1'), dso),
    ]),
  );
  // TransferCommands of bob: created through ExternalPartyAmuletRules, then sent, failed or withdrawn.
  const t5 = after(last, 5);
  const t6 = after(last, 6);
  const t7 = after(last, 7);
  const exercise = (
    updateId: string,
    n: number,
    contractId: string,
    template: string,
    choice: string,
    argument: Json,
    result: Json,
    children: TreeEvent[] = [],
  ): ExercisedEvent => ({
    event_type: 'exercised_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: pkg.templateId(template),
    package_name: pkg.packageName,
    choice,
    choice_argument: argument,
    child_event_ids: children.map((c) => c.event_id),
    exercise_result: result,
    consuming: choice !== 'ExternalPartyAmuletRules_CreateTransferCommand',
    acting_parties: [bob],
    interface_id: null,
  });
  const command = (updateId: string, n: number, nonce: string, at: string): TreeEvent[] => {
    // The choice's argument names what the created command holds, and the DSO it expects.
    const terms = {
      sender: bob,
      receiver: alice,
      delegate: provider,
      amount: '10.0000000000',
      expiresAt: '2030-01-01T00:00:00Z',
      nonce,
      description: null,
    };
    const created = createEvent(
      updateId,
      n + 1,
      like('Splice.ExternalPartyAmuletRules:TransferCommand'),
      `00tc-${updateId}-${nonce}`,
      { dso, ...terms },
      at,
      [bob, dso],
    );
    const args = { ...terms, expectedDso: dso };
    return [
      exercise(
        updateId,
        n,
        '00ext-rules',
        'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
        'ExternalPartyAmuletRules_CreateTransferCommand',
        args,
        { transferCommandCid: created.contract_id },
        [created],
      ),
      created,
    ];
  };
  /** A transaction whose roots are the events no other event of it names as a child. */
  const tree = (updateId: string, at: string, events: TreeEvent[]): CanonicalItem => {
    const item = tx(updateId, at, migration, sync, events);
    const children = new Set(events.flatMap((e) => (e.event_type === 'exercised_event' ? e.child_event_ids : [])));
    (item.update as { root_event_ids: string[] }).root_event_ids = events.map((e) => e.event_id).filter((id) => !children.has(id));
    return item;
  };
  const tc = 'Splice.ExternalPartyAmuletRules:TransferCommand';
  items.push(
    tree('hand-tc', t5, [
      ...command('hand-tc', 0, '3', t5),
      ...command('hand-tc', 2, '4', t5),
      ...command('hand-tc', 4, '5', t5),
      ...command('hand-tc', 6, '6', t5),
    ]),
    tree('hand-tc-outcomes', t6, [
      exercise(
        'hand-tc-outcomes',
        0,
        '00tc-hand-tc-3',
        tc,
        'TransferCommand_Send',
        {},
        {
          result: { tag: 'TransferCommandResultSuccess', value: { result: {} } },
          sender: bob,
          nonce: '3',
        },
      ),
      exercise(
        'hand-tc-outcomes',
        1,
        '00tc-hand-tc-4',
        tc,
        'TransferCommand_Send',
        {},
        {
          result: {
            tag: 'TransferCommandResultFailure',
            value: { reason: { tag: 'ITR_Other', value: `No TransferPreapproval for receiver '${alice}'` } },
          },
          sender: bob,
          nonce: '4',
        },
      ),
      exercise('hand-tc-outcomes', 2, '00tc-hand-tc-5', tc, 'TransferCommand_Withdraw', {}, { sender: bob, nonce: '5' }),
    ]),
    tree('hand-tc-again', t7, command('hand-tc-again', 0, '3', t7)),
  );
  return items;
}
