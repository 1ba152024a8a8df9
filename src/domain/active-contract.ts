/**
 * The ActiveContract item of the ACS and holdings-state responses (scan.yaml
 * ActiveContract), rendered as JSON text so that the stored compact_json
 * create arguments go out verbatim, never parsed and re-serialised.
 *
 * Keys in the order of the Scan app's generated encoder:
 * created_in_update_id (null for contracts imported into the migration by
 * import updates), contract_id, template_id, package_name, create_arguments
 * (compact_json), created_at (date-time, timestamp form 3 of docs/interfaces.md), signatories and
 * observers (sorted ascending).
 */
import { formatDateTime, type Micros } from './time';

export interface ActiveContract {
  createdInUpdateId: string | null;
  contractId: string;
  templateId: string;
  packageName: string;
  /** compact_json text as stored; must be a JSON object. */
  createArgumentsJson: string;
  createdAt: Micros;
  signatories: readonly string[];
  observers: readonly string[];
}

// Scala sorts strings by UTF-16 code units, as does the default JS sort.
const sorted = (parties: readonly string[]) => [...parties].sort();

export function activeContractJson(c: ActiveContract): string {
  const s = JSON.stringify;
  // Scan strips a participant-local '#' prefix from update ids.
  const updateId = c.createdInUpdateId === null ? null : c.createdInUpdateId.replace(/^#/, '');
  return (
    `{"created_in_update_id":${s(updateId)},"contract_id":${s(c.contractId)},"template_id":${s(c.templateId)},` +
    `"package_name":${s(c.packageName)},"create_arguments":${c.createArgumentsJson},` +
    `"created_at":${s(formatDateTime(c.createdAt))},"signatories":${s(sorted(c.signatories))},"observers":${s(sorted(c.observers))}}`
  );
}
