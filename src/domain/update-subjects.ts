/**
 * What the live stream's `party` and `template` filters match (update_subjects, written by the planner):
 * the parties and templates an update's events name. Parties: the signatories and observers of each
 * created event (an assignment's too), the acting parties of each exercised event, and a reassignment's
 * submitter. Templates: the template id of each created and exercised event. An unassignment names no
 * template, and the stakeholders of a contract an exercise uses are not in the update unless another of
 * its events names them.
 */
import type { Update } from './items';

export interface UpdateSubjects {
  /** Distinct, sorted. */
  parties: string[];
  /** Distinct, sorted. */
  templates: string[];
}

const sorted = (s: Set<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function subjectsOf(update: Update): UpdateSubjects {
  const parties = new Set<string>();
  const templates = new Set<string>();
  if ('events_by_id' in update) {
    for (const event of Object.values(update.events_by_id)) {
      templates.add(event.template_id);
      if (event.event_type === 'created_event') {
        for (const p of event.signatories) parties.add(p);
        for (const p of event.observers) parties.add(p);
      } else {
        for (const p of event.acting_parties) parties.add(p);
      }
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
  return { parties: sorted(parties), templates: sorted(templates) };
}
