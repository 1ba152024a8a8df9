/**
 * The one rendering of live contracts for the Scan and validator interfaces
 * (reference splice-scan.md §7): `Contract`, `ContractWithState` and
 * `AnsEntry`, keys in the order of the Scan app's OpenAPI document, absent
 * optionals as `null` (its generated encoders print nulls).
 *
 * `created_event_blob`: in the Scan app this is the base64 of the
 * participant's created-event blob (the serialised contract instance that a
 * validator passes as a disclosed contract when it submits a command). Only a
 * participant can produce it, and the update stream we index does not carry
 * it (neither Scan's `/v2/updates` and `/v0/events` nor the simulator). We
 * serve the contracts table's created_event_blob, which no source fills today,
 * so it is the empty string: the field is a required string, and inventing bytes
 * would be worse than an honest "none". Clients that submit commands with
 * disclosed contracts need a real Scan (or a participant) for the blob.
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

/** `Contract`: created_at is a Daml timestamp string (ISO_INSTANT, §1.4 format 4). */
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

/** `AnsEntry`: expires_at is an OpenAPI date-time (§1.4 format 3). */
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
