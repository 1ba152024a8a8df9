/**
 * Event formats of the ledger interface (docs/interfaces.md, "Ledger API: transaction by id"):
 * which parties read, with which cumulative filters, and what a filter
 * matches. Pure; the HTTP layer decodes requests into these types.
 */
import { KNOWN_INTERFACES, implementsInterface, type KnownInterface } from './ledger-interfaces';
import type { TemplateKey } from './splice-contracts';

export type TransactionShape = 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS';

/** A template or interface reference: `#<package-name>:<Module>:<Entity>` or `<package-id>:<Module>:<Entity>`. */
export type IdentifierRef =
  { by: 'package-name'; packageName: string; qualifiedName: string } | { by: 'package-id'; packageId: string; qualifiedName: string };

export type CumulativeFilter =
  | { kind: 'wildcard'; includeCreatedEventBlob: boolean }
  | { kind: 'template'; templateId: IdentifierRef; includeCreatedEventBlob: boolean }
  | { kind: 'interface'; interfaceId: IdentifierRef; includeInterfaceView: boolean; includeCreatedEventBlob: boolean };

/** A party's filters: never empty (an empty list means one wildcard without blob). */
export type Filters = readonly CumulativeFilter[];

export interface EventFormat {
  filtersByParty: ReadonlyMap<string, Filters>;
  /** Filters for every party the participant hosts; here: every party. */
  filtersForAnyParty: Filters | undefined;
}

export interface TransactionFormat {
  eventFormat: EventFormat;
  shape: TransactionShape;
}

export const WILDCARD: Filters = Object.freeze([{ kind: 'wildcard', includeCreatedEventBlob: false }]);

/** The legacy `requestingParties` form: a wildcard per party, ACS-delta shape (verbose has no effect in JSON). */
export function legacyTransactionFormat(parties: readonly string[]): TransactionFormat {
  return {
    eventFormat: { filtersByParty: new Map(parties.map((p) => [p, WILDCARD])), filtersForAnyParty: undefined },
    shape: 'TRANSACTION_SHAPE_ACS_DELTA',
  };
}

const NAME_PART = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/** Parses an identifier reference; returns an error text for a malformed one. */
export function parseIdentifier(text: string): IdentifierRef | { error: string } {
  const parts = text.split(':');
  const [pkg, module, entity] = parts;
  if (parts.length !== 3 || !pkg || !module || !entity || !NAME_PART.test(module) || !NAME_PART.test(entity)) {
    return { error: `'${text}' is not an identifier of the form #<package-name>:<Module>:<Entity> or <package-id>:<Module>:<Entity>` };
  }
  const qualifiedName = `${module}:${entity}`;
  if (pkg.startsWith('#')) {
    const packageName = pkg.slice(1);
    if (!/^[A-Za-z0-9_.-]+$/.test(packageName)) return { error: `'${text}' has an invalid package name` };
    return { by: 'package-name', packageName, qualifiedName };
  }
  if (!/^[0-9a-f]{64}$/.test(pkg)) return { error: `'${text}' has an invalid package id (expected 64 lowercase hex characters)` };
  return { by: 'package-id', packageId: pkg, qualifiedName };
}

/** A template as events carry it. */
export interface EventTemplate extends TemplateKey {
  /** "<package id>:<Module>:<Entity>". */
  templateId: string;
}

function refersTo(ref: IdentifierRef, template: EventTemplate): boolean {
  if (ref.qualifiedName !== template.qualifiedName) return false;
  // A package-id reference names one package version: without a package store we cannot map it to its package name.
  return ref.by === 'package-name'
    ? ref.packageName === template.packageName
    : template.templateId === `${ref.packageId}:${ref.qualifiedName}`;
}

/** The known interface an interface reference names, if any (see ledger-interfaces.ts). */
function knownInterface(ref: IdentifierRef): KnownInterface | undefined {
  return KNOWN_INTERFACES.find(
    (i) =>
      i.qualifiedName === ref.qualifiedName &&
      (ref.by === 'package-name' ? i.packageName === ref.packageName : i.packageId === ref.packageId),
  );
}

export interface FilterMatch {
  includeCreatedEventBlob: boolean;
  /** Interfaces whose views were asked for and that the template implements. */
  views: KnownInterface[];
}

/** Whether any of the filters matches the template; the include flags accumulate over the matching ones. */
export function matchFilters(filters: Filters, template: EventTemplate): FilterMatch | undefined {
  let matched = false;
  let includeCreatedEventBlob = false;
  const views: KnownInterface[] = [];
  for (const f of filters) {
    if (f.kind === 'wildcard' || (f.kind === 'template' && refersTo(f.templateId, template))) {
      matched = true;
      includeCreatedEventBlob ||= f.includeCreatedEventBlob;
    } else if (f.kind === 'interface') {
      const known = knownInterface(f.interfaceId);
      if (known && implementsInterface(known, template)) {
        matched = true;
        includeCreatedEventBlob ||= f.includeCreatedEventBlob;
        if (f.includeInterfaceView && !views.includes(known)) views.push(known);
      }
    }
  }
  return matched ? { includeCreatedEventBlob, views } : undefined;
}
