/**
 * What the live stream's `party` and `template` filters match (update_subjects, written by the planner):
 * the parties and templates an update's events name. Parties: the signatories and observers of each
 * created event (an assignment's too), the acting parties of each exercised event, the stakeholders of
 * each contract a consuming exercise archives, and a reassignment's submitter. Templates: the template id
 * of each created and exercised event. An unassignment names no template.
 *
 * Scan's exercised events carry neither the contract's stakeholders nor its witnesses, so the
 * stakeholders of a contract consumed but created by an earlier update come from its created event as
 * stored (the caller's `stakeholdersOf`): without them, the owner of an amulet the DSO expires would not
 * see that update on a party-filtered stream. A non-consuming exercise adds only its acting parties.
 */
import type { Update } from './items';

export interface UpdateSubjects {
  /** Distinct, sorted. */
  parties: string[];
  /** Distinct, sorted. */
  templates: string[];
}

/** Sorted by UTF-16 code units (ASCII for party and template ids): the default order of sort(). */
export const sortedDistinct = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** The contracts the update's consuming exercises archive that none of its own created events creates. */
export function consumedFromEarlier(update: Update): string[] {
  if (!('events_by_id' in update)) return [];
  const created = new Set<string>();
  const consumed: string[] = [];
  for (const event of Object.values(update.events_by_id)) {
    if (event.event_type === 'created_event') created.add(event.contract_id);
    else if (event.consuming) consumed.push(event.contract_id);
  }
  return consumed.filter((id) => !created.has(id));
}

/**
 * `stakeholdersOf`: the signatories and observers of a contract consumed from an earlier update, where the
 * caller knows them (undefined: it does not, and merges them in later).
 */
export function subjectsOf(
  update: Update,
  stakeholdersOf: (contractId: string) => readonly string[] | undefined = () => undefined,
): UpdateSubjects {
  const parties = new Set<string>();
  const templates = new Set<string>();
  if ('events_by_id' in update) {
    // One pass over the events (the planner runs this for every update), as consumedFromEarlier would find them.
    const events = update.events_by_id;
    const created = new Set<string>();
    const consumed: string[] = [];
    for (const id in events) {
      const event = events[id]!;
      templates.add(event.template_id);
      if (event.event_type === 'created_event') {
        created.add(event.contract_id);
        for (const p of event.signatories) parties.add(p);
        for (const p of event.observers) parties.add(p);
      } else {
        for (const p of event.acting_parties) parties.add(p);
        if (event.consuming) consumed.push(event.contract_id);
      }
    }
    for (const id of consumed) {
      if (created.has(id)) continue;
      const stakeholders = stakeholdersOf(id);
      if (stakeholders) for (const p of stakeholders) parties.add(p);
    }
  } else {
    parties.add(update.event.submitter);
    if ('created_event' in update.event) {
      const created = update.event.created_event;
      templates.add(created.template_id);
      for (const p of created.signatories) parties.add(p);
      for (const p of created.observers) parties.add(p);
    }
  }
  return { parties: [...parties].sort(), templates: [...templates].sort() };
}
