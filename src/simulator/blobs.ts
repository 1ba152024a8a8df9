/**
 * Created-event blobs for the simulated contracts that wallets and validators
 * disclose when they submit (docs/interfaces.md, "Token-standard registry"): the rules, the external party config states, the open and
 * issuing rounds, featured-app rights, transfer preapprovals, command
 * counters and locked amulets (which the registry discloses to settle them). A real blob is the participant's serialised contract instance;
 * ours is opaque but shaped like one: a protobuf message whose first field is
 * the version "2.1" (as real blobs, which begin "CgMyLjE"), then the contract
 * id and template id, then bytes drawn from a hash of the contract id, so
 * that each blob is deterministic, distinct and of a realistic size.
 */
import { createHash } from 'node:crypto';
import type { CanonicalItem, CreatedEvent } from '../domain/items';
import { isAssign, isTransaction } from '../domain/items';
import { TEMPLATES } from './templates';

const DISCLOSED_TEMPLATE_IDS = new Set(
  [
    TEMPLATES.amuletRules,
    TEMPLATES.externalPartyAmuletRules,
    TEMPLATES.externalPartyConfigState,
    TEMPLATES.ansRules,
    TEMPLATES.openMiningRound,
    TEMPLATES.issuingMiningRound,
    TEMPLATES.featuredAppRight,
    TEMPLATES.transferPreapproval,
    TEMPLATES.transferCommandCounter,
    TEMPLATES.lockedAmulet,
  ].map((t) => t.templateId),
);

/** Whether contracts of the template get a blob. */
const isDisclosedTemplate = (templateId: string): boolean => DISCLOSED_TEMPLATE_IDS.has(templateId);

function field(tag: number, bytes: Buffer): Buffer {
  const length: number[] = [];
  let n = bytes.length;
  do {
    length.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(tag << 3) | 2, ...length]), bytes]);
}

/** The blob of one created event: about 0.4 to 1.2 KB (AmuletRules, whose configuration is large, about 3 KB). */
function createdEventBlob(event: Pick<CreatedEvent, 'contract_id' | 'template_id'>): string {
  const seed = createHash('sha256').update(event.contract_id).digest();
  const size = event.template_id === TEMPLATES.amuletRules.templateId ? 3000 : 400 + (seed.readUInt16BE(0) % 800);
  const chunks: Buffer[] = [];
  for (let i = 0, total = 0; total < size; i++, total += 32) {
    chunks.push(createHash('sha256').update(seed).update(String(i)).digest());
  }
  return Buffer.concat([
    field(1, Buffer.from('2.1')),
    field(2, Buffer.from(event.contract_id)),
    field(3, Buffer.from(event.template_id)),
    field(4, Buffer.concat(chunks).subarray(0, size)),
  ]).toString('base64');
}

/** Adds `created_event_blobs` to an item whose update creates or assigns contracts of disclosed templates. */
export function withCreatedEventBlobs(item: CanonicalItem): CanonicalItem {
  const update = item.update;
  if (!update) return item;
  let blobs: Record<string, string> | undefined;
  const consider = (event: CreatedEvent): void => {
    if (!isDisclosedTemplate(event.template_id)) return;
    blobs ??= {};
    blobs[event.contract_id] = createdEventBlob(event);
  };
  if (isTransaction(update)) {
    for (const id in update.events_by_id) {
      const event = update.events_by_id[id]!;
      if (event.event_type === 'created_event') consider(event);
    }
  } else if (isAssign(update.event)) {
    consider(update.event.created_event);
  }
  if (blobs) item.created_event_blobs = blobs;
  return item;
}
