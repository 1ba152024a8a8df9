/**
 * The attestation rule of the mirrored history (src/ingest/sources/attestation.ts): what four
 * upstreams' answers decide at threshold 2 (f = 1), for honest, byzantine, lagging and down
 * upstreams; and which fields the content hash leaves out.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { decide, itemHashes, type Answer, type Element } from '../../../src/ingest/sources/attestation';

type E = Element<number, string>;
const el = (key: number, hash = `h${key}`, extra: Partial<E> = {}): E => ({ key, hash, value: `${key}:${hash}`, ...extra });
const ok = (...elements: E[]): Answer<number, string> => ({ ok: true, elements });
const down: Answer<number, string> = { ok: false, reason: 'connection refused' };
const byNumber = (a: number, b: number) => a - b;
const honest = () => ok(el(1), el(2), el(3), el(4));

/** Each upstream's outcomes as compact strings, per decided key. */
function outcomes(answers: Answer<number, string>[]) {
  const d = decide(answers, 2, byNumber);
  return {
    committed: d.committed.map((c) => c.value),
    outcomes: d.outcomes.map((o) => `${o.key}: ${o.byUpstream.map((u) => u.kind).join(' ')}`),
    stalled: d.stalled && { key: d.stalled.key, reason: d.stalled.reason },
  };
}

describe('decide (4 upstreams, threshold 2)', () => {
  it('commits what all agree on, in key order', () => {
    expect(outcomes([honest(), honest(), honest(), honest()])).toEqual({
      committed: ['1:h1', '2:h2', '3:h3', '4:h4'],
      outcomes: [
        '1: agreed agreed agreed agreed',
        '2: agreed agreed agreed agreed',
        '3: agreed agreed agreed agreed',
        '4: agreed agreed agreed agreed',
      ],
      stalled: undefined,
    });
  });

  it('a changed element: the honest version is stored, the byzantine upstream disagrees at that key only', () => {
    const changed = ok(el(1), el(2), el(3, 'forged'), el(4));
    const d = decide([honest(), changed, honest(), honest()], 2, byNumber);
    expect(d.committed.map((c) => c.value)).toEqual(['1:h1', '2:h2', '3:h3', '4:h4']);
    expect(d.outcomes[2]!.byUpstream[1]).toEqual({ kind: 'disagreed', hash: 'forged', expected: 'h3' });
    expect(
      d.outcomes.flatMap((o, k) => o.byUpstream.map((u, i) => (u.kind === 'disagreed' ? `${k + 1}@${i}` : ''))).filter(Boolean),
    ).toEqual(['3@1']);
  });

  it('a dropped element: stored anyway, counted against the upstream that left it out', () => {
    const dropped = ok(el(1), el(2), el(4));
    expect(outcomes([dropped, honest(), honest(), honest()])).toEqual({
      committed: ['1:h1', '2:h2', '3:h3', '4:h4'],
      outcomes: [
        '1: agreed agreed agreed agreed',
        '2: agreed agreed agreed agreed',
        '3: disagreed agreed agreed agreed',
        '4: agreed agreed agreed agreed',
      ],
      stalled: undefined,
    });
  });

  it('an invented element: absent by quorum, never stored', () => {
    const invented = ok(el(1), el(2), el(2.5, 'made-up'), el(3), el(4));
    expect(outcomes([honest(), honest(), invented, honest()])).toEqual({
      committed: ['1:h1', '2:h2', '3:h3', '4:h4'],
      outcomes: [
        '1: agreed agreed agreed agreed',
        '2: agreed agreed agreed agreed',
        '2.5: agreed agreed disagreed agreed',
        '3: agreed agreed agreed agreed',
        '4: agreed agreed agreed agreed',
      ],
      stalled: undefined,
    });
  });

  it('two colluding on a wrong element: stops before it and reports a conflict', () => {
    const wrong = () => ok(el(1), el(2), el(3, 'wrong'), el(4));
    const d = outcomes([honest(), wrong(), honest(), wrong()]);
    expect(d.committed).toEqual(['1:h1', '2:h2']);
    expect(d.stalled).toEqual({ key: 3, reason: 'conflict' });
  });

  it('a dissent that the unheard upstreams could still match waits for them, rather than commit either version', () => {
    const wrong = ok(el(1), el(2), el(3, 'wrong'), el(4));
    // Two honest against one dissenter, the fourth not heard: it could make it two against two.
    expect(outcomes([honest(), wrong, honest(), down])).toEqual({
      committed: ['1:h1', '2:h2'],
      outcomes: ['1: agreed agreed agreed silent', '2: agreed agreed agreed silent'],
      stalled: undefined,
    });
    // Heard from, the fourth settles it either way.
    expect(outcomes([honest(), wrong, honest(), honest()]).committed).toEqual(['1:h1', '2:h2', '3:h3', '4:h4']);
    expect(outcomes([honest(), wrong, honest(), ok(el(1), el(2), el(3, 'wrong'), el(4))]).stalled).toEqual({ key: 3, reason: 'conflict' });
  });

  it('one upstream down, or lagging: the others decide; the lagging one is not counted against', () => {
    expect(outcomes([honest(), down, honest(), honest()]).committed).toEqual(['1:h1', '2:h2', '3:h3', '4:h4']);
    const lagging = ok(el(1), el(2));
    expect(outcomes([honest(), lagging, honest(), down])).toEqual({
      committed: ['1:h1', '2:h2', '3:h3', '4:h4'],
      outcomes: [
        '1: agreed agreed agreed silent',
        '2: agreed agreed agreed silent',
        '3: agreed silent agreed silent',
        '4: agreed silent agreed silent',
      ],
      stalled: undefined,
    });
  });

  it('waits while too few upstreams have reached a key', () => {
    expect(outcomes([honest(), ok(el(1)), ok(el(1)), down])).toEqual({
      committed: ['1:h1'],
      outcomes: ['1: agreed agreed agreed silent'],
      stalled: undefined,
    });
  });

  it('no quorum: every upstream shows a different version', () => {
    const versions = ['a', 'b', 'c', 'd'].map((v) => ok(el(1), el(2, v)));
    expect(outcomes(versions)).toMatchObject({ committed: ['1:h1'], stalled: { key: 2, reason: 'no quorum' } });
    // With one upstream yet to show its hand, a quorum may still form: wait without a stall.
    expect(outcomes([versions[0]!, versions[1]!, versions[2]!, ok(el(1))]).stalled).toBeUndefined();
  });

  it('an update whose verdict some upstreams do not have yet is pending there, not a disagreement', () => {
    const withVerdict = (k: number) => el(k, `h${k}+v`, { updateHash: `u${k}`, hasVerdict: true });
    const without = (k: number) => el(k, `h${k}`, { updateHash: `u${k}`, hasVerdict: false });
    const d = outcomes([ok(withVerdict(1)), ok(withVerdict(1)), ok(without(1)), ok(without(1))]);
    expect(d).toEqual({ committed: ['1:h1+v'], outcomes: ['1: agreed agreed pending pending'], stalled: undefined });
    // Only one upstream has the verdict: wait for another, and say what is awaited once all have answered.
    expect(outcomes([ok(withVerdict(1)), ok(without(1)), ok(without(1)), ok(without(1))])).toMatchObject({
      committed: [],
      stalled: { key: 1, reason: 'verdict pending' },
    });
  });
});

describe('itemHashes', () => {
  const item = (finalization: string, offset: string, amount: string): CanonicalItem =>
    ({
      update: { update_id: 'u', offset, record_time: '2025-01-01T00:00:00.000000Z', event: { amount } },
      verdict: { update_id: 'u', record_time: '2025-01-01T00:00:00.000000Z', finalization_time: finalization },
      traffic_summary: null,
      app_activity_records: null,
    }) as unknown as CanonicalItem;

  it("leaves out a verdict's finalization time and a reassignment's offset, nothing else", () => {
    const a = itemHashes(item('2025-01-01T00:00:01.000000Z', '000000000000000001', '1.0'));
    expect(itemHashes(item('2025-01-01T00:00:09.000000Z', '000000000000000042', '1.0'))).toEqual(a);
    expect(itemHashes(item('2025-01-01T00:00:01.000000Z', '000000000000000001', '2.0')).hash).not.toBe(a.hash);
  });

  it('compares parts as served, key order included', () => {
    const x = item('t', 'o', '1.0');
    const reordered = { app_activity_records: null, traffic_summary: null, verdict: x.verdict, update: x.update } as CanonicalItem;
    expect(itemHashes(reordered)).toEqual(itemHashes(x));
    const keysSwapped = {
      ...x,
      update: { record_time: x.update!.record_time, update_id: x.update!.update_id, ...x.update },
    } as CanonicalItem;
    expect(itemHashes(keysSwapped).hash).not.toBe(itemHashes(x).hash);
  });
});
