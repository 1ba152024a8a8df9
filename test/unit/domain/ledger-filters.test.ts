import {
  legacyTransactionFormat,
  matchFilters,
  parseIdentifier,
  WILDCARD,
  type CumulativeFilter,
  type EventTemplate,
} from '../../../src/domain/ledger-filters';

const PKG = 'a'.repeat(64);
const HOLDING_PKG = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
const amulet: EventTemplate = {
  templateId: `${PKG}:Splice.Amulet:Amulet`,
  packageName: 'splice-amulet',
  qualifiedName: 'Splice.Amulet:Amulet',
};
const locked: EventTemplate = {
  templateId: `${PKG}:Splice.Amulet:LockedAmulet`,
  packageName: 'splice-amulet',
  qualifiedName: 'Splice.Amulet:LockedAmulet',
};
const rules: EventTemplate = {
  templateId: `${PKG}:Splice.AmuletRules:AmuletRules`,
  packageName: 'splice-amulet',
  qualifiedName: 'Splice.AmuletRules:AmuletRules',
};

const ref = (text: string) => {
  const r = parseIdentifier(text);
  if ('error' in r) throw new Error(r.error);
  return r;
};
const template = (id: string, includeCreatedEventBlob = false): CumulativeFilter => ({
  kind: 'template',
  templateId: ref(id),
  includeCreatedEventBlob,
});
const iface = (id: string, includeInterfaceView = false, includeCreatedEventBlob = false): CumulativeFilter => ({
  kind: 'interface',
  interfaceId: ref(id),
  includeInterfaceView,
  includeCreatedEventBlob,
});

describe('identifier references', () => {
  it('parses the package-name and package-id forms', () => {
    expect(parseIdentifier('#splice-amulet:Splice.Amulet:Amulet')).toEqual({
      by: 'package-name',
      packageName: 'splice-amulet',
      qualifiedName: 'Splice.Amulet:Amulet',
    });
    expect(parseIdentifier(`${PKG}:Splice.Amulet:Amulet`)).toEqual({
      by: 'package-id',
      packageId: PKG,
      qualifiedName: 'Splice.Amulet:Amulet',
    });
  });

  it.each(['Splice.Amulet:Amulet', '#splice-amulet:Amulet', '#:A:B', 'abc:A:B', '#p:A:B:C', '#p:1A:B', '#p q:A:B', ''])(
    'rejects %j',
    (text) => {
      expect(parseIdentifier(text)).toHaveProperty('error');
    },
  );
});

describe('cumulative filters', () => {
  it('a wildcard matches everything; blob flags accumulate over matching filters only', () => {
    expect(matchFilters(WILDCARD, rules)).toEqual({ includeCreatedEventBlob: false, views: [] });
    expect(
      matchFilters([{ kind: 'wildcard', includeCreatedEventBlob: false }, template('#splice-amulet:Splice.Amulet:Amulet', true)], amulet),
    ).toEqual({
      includeCreatedEventBlob: true,
      views: [],
    });
    expect(
      matchFilters([{ kind: 'wildcard', includeCreatedEventBlob: false }, template('#splice-amulet:Splice.Amulet:Amulet', true)], rules),
    ).toEqual({
      includeCreatedEventBlob: false,
      views: [],
    });
  });

  it('a template filter by package name matches any version, by package id only that one', () => {
    expect(matchFilters([template('#splice-amulet:Splice.Amulet:Amulet')], amulet)).toBeDefined();
    expect(matchFilters([template('#other:Splice.Amulet:Amulet')], amulet)).toBeUndefined();
    expect(matchFilters([template('#splice-amulet:Splice.Amulet:LockedAmulet')], amulet)).toBeUndefined();
    expect(matchFilters([template(`${PKG}:Splice.Amulet:Amulet`)], amulet)).toBeDefined();
    expect(matchFilters([template(`${'b'.repeat(64)}:Splice.Amulet:Amulet`)], amulet)).toBeUndefined();
  });

  it('the Holding interface matches Amulet and LockedAmulet, by package name or its package id', () => {
    for (const id of [
      '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
      `${HOLDING_PKG}:Splice.Api.Token.HoldingV1:Holding`,
    ]) {
      for (const t of [amulet, locked]) {
        expect(matchFilters([iface(id, true, true)], t)).toEqual({
          includeCreatedEventBlob: true,
          views: [expect.objectContaining({ packageId: HOLDING_PKG, qualifiedName: 'Splice.Api.Token.HoldingV1:Holding' })],
        });
      }
      expect(matchFilters([iface(id)], rules)).toBeUndefined();
    }
    expect(matchFilters([iface(`${'c'.repeat(64)}:Splice.Api.Token.HoldingV1:Holding`)], amulet)).toBeUndefined();
    expect(matchFilters([iface('#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Unknown')], amulet)).toBeUndefined();
  });
});

describe('formats and rights', () => {
  it('the legacy form is a wildcard per party in the ACS_DELTA shape', () => {
    const format = legacyTransactionFormat(['a', 'b']);
    expect(format.shape).toBe('TRANSACTION_SHAPE_ACS_DELTA');
    expect([...format.eventFormat.filtersByParty.entries()]).toEqual([
      ['a', WILDCARD],
      ['b', WILDCARD],
    ]);
    expect(format.eventFormat.filtersForAnyParty).toBeUndefined();
  });
});
