/**
 * The one rendering of live contracts for the Scan and validator interfaces
 * (common-external.yaml; docs/interfaces.md, "Scan: contract-backed state"): `Contract`, `ContractWithState` and
 * `AnsEntry`, keys in the order of the Scan app's OpenAPI document, absent
 * optionals as `null` (its generated encoders print nulls).
 *
 * `created_event_blob`: in the Scan app this is the base64 of the
 * participant's created-event blob (the serialised contract instance that a
 * validator passes as a disclosed contract when it submits a command). Only a
 * participant can produce it, and Scan's update streams do not carry it. We
 * serve what the source gave (contract_blobs): the ledger source asks its
 * participant for it, the simulator writes one for the templates wallets
 * disclose, a mirror copies those of its upstream's contract endpoints. A
 * contract without one is served with "" (the field is a required string, and
 * inventing bytes would be worse than an honest "none").
 */
import { RawJson, type JsonBody } from './raw-json';
import { formatDateTime, formatInstant, type Micros } from './time';

/** A live contract as the API serves it. */
export interface StoredContract {
  /** "<package id>:<Module>:<Entity>" */
  templateId: string;
  contractId: string;
  /** create_arguments in compact_json, as stored (verbatim JSON text). */
  payload: string;
  /** Base64 created-event blob; '' when the source gave none. */
  createdEventBlob: string;
  /** Ledger effective time of the create. */
  createdAt: Micros;
  /** Synchronizer the contract is assigned to; null while in flight. */
  synchronizerId: string | null;
}

/** `Contract`: created_at is a Daml timestamp string (ISO_INSTANT, timestamp form 4 of docs/interfaces.md). */
export function contractJson(c: StoredContract): JsonBody {
  return {
    template_id: c.templateId,
    contract_id: c.contractId,
    payload: new RawJson(c.payload),
    created_event_blob: c.createdEventBlob,
    created_at: formatInstant(c.createdAt),
  };
}

/** `ContractWithState`: domain_id is null while the contract is in flight between synchronizers. */
export function contractWithStateJson(c: StoredContract): JsonBody {
  return { contract: contractJson(c), domain_id: c.synchronizerId };
}

/**
 * `MaybeCachedContractWithState`: the contract, or null when the client named it as the one it
 * has cached; the synchronizer it is assigned to either way.
 */
export function maybeCachedContractJson(c: StoredContract, cachedContractId: string | null | undefined): JsonBody {
  return { contract: c.contractId === cachedContractId ? null : contractJson(c), domain_id: c.synchronizerId };
}

/** An ANS entry: from an AnsEntry contract, or provided by the DSO (no contract, never expires). */
export interface AnsEntryView {
  contractId: string | null;
  user: string;
  name: string;
  url: string;
  description: string;
  expiresAt: Micros | null;
}

/** `AnsEntry`: expires_at is an OpenAPI date-time (timestamp form 3 of docs/interfaces.md). */
export function ansEntryJson(e: AnsEntryView): JsonBody {
  return {
    contract_id: e.contractId,
    user: e.user,
    name: e.name,
    url: e.url,
    description: e.description,
    expires_at: e.expiresAt === null ? null : formatDateTime(e.expiresAt),
  };
}
