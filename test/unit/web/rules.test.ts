/** The web UI's pure rules: how figures are written, how an address names a view, how the list of latest updates is kept. */
import { addDays, amount, duration, microAfter, shortId, sumDecimals, templateName } from '../../../src/web/format';
import { parseRoute } from '../../../src/web/route';
import { afterRefresh, newestFirst } from '../../../src/web/update-list';

describe('web UI formats', () => {
  it('groups the integer part of a decimal by thousands and keeps every decimal', () => {
    expect(amount('1543031.7007967155')).toBe('1,543,031.7007967155');
    expect(amount('-1000.0000000000')).toBe('-1,000.0000000000');
    expect(amount('999.5')).toBe('999.5');
    expect(amount('1000000')).toBe('1,000,000');
    expect(amount('not a number')).toBe('not a number');
  });

  it('sums decimals exactly, to 10 places, where floats would not', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3000000000');
    expect(sumDecimals(['12345678901234567.0000000001', '1.9999999999'])).toBe('12345678901234569.0000000000');
    expect(sumDecimals(['-1.5', '0.25'])).toBe('-1.2500000000');
    expect(sumDecimals([])).toBe('0.0000000000');
    expect(() => sumDecimals(['1e5'])).toThrow('Not a decimal: 1e5');
  });

  it('counts UTC days across months and years', () => {
    expect(addDays('2025-01-31', 1)).toBe('2025-02-01');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
  });

  it('steps one microsecond past a time, across a second boundary too', () => {
    expect(microAfter('2025-01-01T08:24:39.026845Z')).toBe('2025-01-01T08:24:39.026846Z');
    expect(microAfter('2025-01-01T08:24:39Z')).toBe('2025-01-01T08:24:39.000001Z');
    expect(microAfter('2025-01-01T08:24:39.5Z')).toBe('2025-01-01T08:24:39.500001Z');
    expect(microAfter('2025-12-31T23:59:59.999999Z')).toBe('2026-01-01T00:00:00.000000Z');
  });

  it('shortens ids and template ids, and writes durations as people read them', () => {
    expect(templateName('59bbbe2b:Splice.Amulet:Amulet')).toBe('Splice.Amulet:Amulet');
    expect(shortId('00c1df3ee9319ec912f2b9ba6e58f01f7557a25d', 8)).toBe('00c1df3e…57a25d');
    expect(shortId('short')).toBe('short');
    expect(duration(0.25)).toBe('250 ms');
    expect(duration(90)).toBe('90.0 s');
    expect(duration(3600)).toBe('60 min');
    expect(duration(86400 * 3)).toBe('3 days');
  });
});

describe('web UI addresses', () => {
  it('names the view and its argument, decoded', () => {
    expect(parseRoute('')).toEqual({ view: 'network', arg: undefined });
    expect(parseRoute('#/activity')).toEqual({ view: 'activity', arg: undefined });
    expect(parseRoute('#/party/alice%3A%3A1220ab')).toEqual({ view: 'party', arg: 'alice::1220ab' });
    expect(parseRoute('#/ans/')).toEqual({ view: 'ans', arg: undefined });
    // A malformed escape is kept as written rather than breaking the page.
    expect(parseRoute('#/party/%E0%A4%A')).toEqual({ view: 'party', arg: '%E0%A4%A' });
  });
});

describe('the list of latest updates', () => {
  const u = (id: string, second: number) => ({ update_id: id, record_time: `2025-01-01T00:00:${String(second).padStart(2, '0')}.000000Z` });

  it('orders newest first and keeps each update once', () => {
    expect(newestFirst([u('a', 1), u('c', 3), u('b', 2), u('c', 3)]).map((x) => x.update_id)).toEqual(['c', 'b', 'a']);
    // The same record time on two synchronizers: by update id, descending.
    expect(newestFirst([u('x', 5), u('y', 5)]).map((x) => x.update_id)).toEqual(['y', 'x']);
  });

  it('puts a refresh in front of the list, or starts again when a full page leaves a hole', () => {
    const shown = [u('c', 3), u('b', 2), u('a', 1)];
    // Fewer new updates than a page: the page holds the newest shown, and the list grows in front.
    expect(afterRefresh(shown, [u('e', 5), u('d', 4), u('c', 3)], 3).map((x) => x.update_id)).toEqual(['e', 'd', 'c', 'b', 'a']);
    // Nothing new.
    expect(afterRefresh(shown, [u('c', 3)], 3)).toEqual(shown);
    // A full page without the newest shown: what lay between is unknown, so only the page is kept.
    expect(afterRefresh(shown, [u('h', 8), u('g', 7), u('f', 6)], 3).map((x) => x.update_id)).toEqual(['h', 'g', 'f']);
    // A first load.
    expect(afterRefresh([], [u('a', 1)], 3).map((x) => x.update_id)).toEqual(['a']);
  });
});
