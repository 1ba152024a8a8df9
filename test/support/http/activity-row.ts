/** A row of `GET /api/indexer/v0/parties/{party}/activity`, as the tests compute and compare it. */
export interface ActivityRow {
  migration_id: number;
  record_time: string;
  update_id: string;
  event_id: string;
  kind: string;
  leg: number;
  party: string;
  round: number | null;
  amount: string;
  fees: string;
  holding_fees: string | null;
  burned: string | null;
  counterparties: string[];
  provider: string | null;
  featured: boolean | null;
  via: string | null;
  traffic: number | null;
  subject: string | null;
  detail: string | null;
  outcome: string | null;
  expires_at: string | null;
}
