/**
 * The Daml interfaces an InterfaceFilter of the ledger interface can match.
 *
 * Canton answers interface filters from its package store: it knows every
 * template of every uploaded package and which interfaces each implements.
 * scan-indexer has no package store, only the updates it ingested, so it can
 * only match interfaces whose implementations are known here. This table lists
 * the Splice token-standard interfaces whose package id and implementing
 * templates (by package name and qualified name, so every package version
 * counts) are stable and published. An InterfaceFilter naming any other
 * interface matches no event; it is not rejected, since we cannot tell an
 * unknown interface from one we merely have no table entry for.
 *
 * Interface views are not computed either: that needs the Daml engine. A
 * requested view is returned with a non-OK `viewStatus` (gRPC UNIMPLEMENTED)
 * and a null `viewValue`, the shape Canton uses for a view it failed to
 * compute (Canton JsSchema, JsInterfaceView).
 */
import { SPLICE, type TemplateKey } from './splice-contracts';

export interface KnownInterface {
  packageName: string;
  /** Package id of the interface definition, for responses (always the package-id form). */
  packageId: string;
  qualifiedName: string;
  implementedBy: readonly TemplateKey[];
}

export const KNOWN_INTERFACES: readonly KnownInterface[] = [
  {
    packageName: 'splice-api-token-holding-v1',
    packageId: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b',
    qualifiedName: 'Splice.Api.Token.HoldingV1:Holding',
    implementedBy: [SPLICE.amulet, SPLICE.lockedAmulet],
  },
];

/** "<package id>:<Module>:<Entity>" of an interface, as responses name it. */
export const interfaceIdOf = (i: KnownInterface) => `${i.packageId}:${i.qualifiedName}`;

export function implementsInterface(i: KnownInterface, template: TemplateKey): boolean {
  return i.implementedBy.some((t) => t.packageName === template.packageName && t.qualifiedName === template.qualifiedName);
}

/** gRPC status of a view we cannot compute (code 12 = UNIMPLEMENTED). */
export const VIEW_NOT_COMPUTED = Object.freeze({
  code: 12,
  message: 'Interface views are not computed by scan-indexer: it has no Daml engine.',
  details: [] as never[],
});
