/**
 * The UI's only way to the data: the service's public HTTP endpoints, called as any client calls
 * them. Errors come back as ApiError with the server's own message, so views can show it. The
 * answers' types come from the server's declarations of them (type-only: nothing of the server is
 * bundled).
 */
import type { z } from 'zod';
import type {
  ActivityPage,
  DailyMintBurn as DailyMintBurnSchema,
  HourlyUpdates,
  NetworkSeries as NetworkSeriesSchema,
  PartyDailyBalances as PartyDailyBalancesSchema,
  RewardLeaderboard as RewardLeaderboardSchema,
  SnapshotsPage,
} from '../api/indexer/schemas';
import type {
  AcsResponse,
  ActiveContract,
  AnsEntry as AnsEntrySchema,
  HoldingsSummary as HoldingsSummarySchema,
  LastMigration,
  RecordTimeRange,
  ScansResponse as ScansAnswer,
} from '../api/scan/schemas';
import type { IngestStatus as IngestStatusAnswer } from '../api/operational/schemas';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly request: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST';

async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const request = `${method} ${path}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server could not be reached.', request);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    // Scan and the indexer's own endpoints answer {"error": "..."}; anything else gets its status line.
    const given = typeof json === 'object' && json !== null && 'error' in json ? json.error : undefined;
    const message = typeof given === 'string' && given !== '' ? given : `${res.status} ${res.statusText || 'error'}`;
    throw new ApiError(res.status, message, request);
  }
  if (json === undefined) throw new ApiError(res.status, 'The server sent an answer that is not JSON.', request);
  return json as T;
}

const get = <T>(path: string): Promise<T> => call<T>('GET', path);
const post = <T>(path: string, body: unknown): Promise<T> => call<T>('POST', path, body);

const SCAN = '/api/scan';
const INDEXER = '/api/indexer/v0';
const q = encodeURIComponent;

// ---- Shapes of the answers the views read (only the fields they use). ----

export interface Contract<P = Record<string, unknown>> {
  template_id: string;
  contract_id: string;
  payload: P;
  created_at: string;
}
export interface ContractWithState<P = Record<string, unknown>> {
  contract: Contract<P>;
  domain_id: string | null;
}

interface TransferConfig {
  createFee: { fee: string };
  holdingFee: { rate: string };
  transferFee: { initialRate: string; steps: { _1: string; _2: string }[] };
  lockHolderFee: { fee: string };
  extraFeaturedAppRewardAmount: string;
  maxNumInputs: string;
  maxNumOutputs: string;
  maxNumLockHolders: string;
}
interface OpenRoundPayload {
  round: { number: string };
  amuletPrice: string;
  opensAt: string;
  targetClosesAt: string;
}
interface SvInfo {
  name: string;
  joinedAsOfRound: { number: string };
  svRewardWeight: string;
  participantId: string;
}
export interface DsoInfo {
  sv_user: string;
  sv_party_id: string;
  dso_party_id: string;
  voting_threshold: number;
  latest_mining_round: ContractWithState<OpenRoundPayload>;
  amulet_rules: ContractWithState<{ configSchedule: { initialValue: { transferConfig: TransferConfig } } }>;
  dso_rules: ContractWithState<{ svs: [string, SvInfo][] }>;
}
export type ScansResponse = z.input<typeof ScansAnswer>;
export interface RoundsResponse {
  open_mining_rounds: Record<string, ContractWithState<OpenRoundPayload>>;
  issuing_mining_rounds: Record<string, ContractWithState<{ round: { number: string }; opensAt: string; targetClosesAt: string }>>;
}
export interface ClosedRoundsResponse {
  rounds: Contract<{ round: { number: string } }>[];
}

export type SnapshotPage = z.input<typeof SnapshotsPage>;
export type AcsSnapshot = SnapshotPage['snapshots'][number];
export type UpdatesPerHour = z.input<typeof HourlyUpdates>;

export interface TreeEvent {
  /** created_event, exercised_event or archived_event. */
  event_type: string;
  event_id: string;
  contract_id: string;
  template_id: string;
  choice?: string;
  consuming?: boolean;
  child_event_ids?: string[];
  signatories?: string[];
  acting_parties?: string[];
}
/** A transaction, or a reassignment (which has `event` instead of an event tree), as history serves it. */
export interface HistoryUpdate {
  update_id: string;
  migration_id?: number;
  record_time: string;
  synchronizer_id?: string;
  root_event_ids?: string[];
  events_by_id?: Record<string, TreeEvent>;
  event?: { submitter?: string; source_synchronizer?: string; target_synchronizer?: string; contract_id?: string };
  external_transaction_hash?: string;
}
interface Verdict {
  verdict_result: string;
  finalization_time: string;
  submitting_parties: string[];
  submitting_participant_uid: string;
  mediator_group: number;
  transaction_views: { views: unknown[] };
}
export interface EventItem {
  update: HistoryUpdate | null;
  verdict: Verdict | null;
  traffic_summary?: { total_traffic_cost: number; envelope_traffic_summaries: unknown[] } | null;
  app_activity_records?: unknown;
}
export interface MigrationInfo {
  record_time_range: z.input<typeof RecordTimeRange>[];
}

export type HoldingsSummary = z.input<typeof HoldingsSummarySchema>;
/** The fields the views read of an Amulet's or a LockedAmulet's create arguments. */
interface HoldingArguments {
  amount?: { initialAmount: string; createdAt: { number: string } };
  amulet?: { amount: { initialAmount: string; createdAt: { number: string } } };
  lock?: { expiresAt: string; holders: string[] };
}
/** A page of /v2/holdings/state, whose items are holdings and which always states its next_page_token. */
export type HoldingsPage = Omit<z.input<typeof AcsResponse>, 'created_events' | 'next_page_token'> & {
  created_events: (z.input<typeof ActiveContract> & { create_arguments: HoldingArguments })[];
  next_page_token: string | null;
};
export type AnsEntry = z.input<typeof AnsEntrySchema>;

interface Vote {
  sv: string;
  accept: boolean;
  reason: { url: string; body: string };
  optCastAt: string | null;
}
export interface VoteRequestPayload {
  requester: string;
  action: { tag: string; value: Record<string, unknown> };
  reason: { url: string; body: string };
  voteBefore: string;
  votes: [string, Vote][];
  trackingCid: string | null;
}
export interface VoteResult {
  request: VoteRequestPayload;
  completedAt: string;
  outcome: { tag: string; value?: unknown };
  abstainingSvs: string[];
  offboardedVoters: string[];
}

export type IngestStatus = z.input<typeof IngestStatusAnswer>;

export type ActivitiesPage = z.input<typeof ActivityPage>;
export type Activity = ActivitiesPage['activities'][number];
export type ActivityKind = Activity['kind'];
export type DailyMintBurn = z.input<typeof DailyMintBurnSchema>;
export type RewardLeaderboard = z.input<typeof RewardLeaderboardSchema>;
export type Reward = RewardLeaderboard['reward'];
export type PartyDailyBalances = z.input<typeof PartyDailyBalancesSchema>;
export type NetworkSeries = z.input<typeof NetworkSeriesSchema>;

/** Which of a party's activities: kinds (all when empty) and a record-time range (instants, either open). */
export interface ActivityFilter {
  kinds: readonly ActivityKind[];
  from?: string;
  to?: string;
}

/** The query string of an activity filter (without page parameters); newest first. */
function activityQuery(filter: ActivityFilter): string {
  const params = new URLSearchParams();
  for (const k of filter.kinds) params.append('kind', k);
  if (filter.from !== undefined) params.set('from', filter.from);
  if (filter.to !== undefined) params.set('to', filter.to);
  params.set('order', 'desc');
  return params.toString();
}

/**
 * The CSV export of a party's activities. A link cannot ask for text/csv (a browser's Accept takes
 * JSON first), so it is fetched with that Accept and handed to the browser as a file.
 */
async function activityCsv(party: string, filter: ActivityFilter): Promise<Blob> {
  const path = `${INDEXER}/parties/${q(party)}/activity?${activityQuery(filter)}`;
  let res: Response;
  try {
    res = await fetch(path, { headers: { accept: 'text/csv' } });
  } catch {
    throw new ApiError(0, 'The server could not be reached.', `GET ${path}`);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
    throw new ApiError(
      res.status,
      typeof body?.error === 'string' ? body.error : `${res.status} ${res.statusText || 'error'}`,
      `GET ${path}`,
    );
  }
  return res.blob();
}

// ---- The calls. ----

export const api = {
  dso: () => get<DsoInfo>(`${SCAN}/v0/dso`),
  lastMigration: () => get<z.input<typeof LastMigration>>(`${SCAN}/v0/migrations/last`),
  scans: () => get<ScansResponse>(`${SCAN}/v0/scans`),
  rounds: () =>
    post<RoundsResponse>(`${SCAN}/v0/open-and-issuing-mining-rounds`, {
      cached_open_mining_round_contract_ids: [],
      cached_issuing_round_contract_ids: [],
    }),
  closedRounds: () => get<ClosedRoundsResponse>(`${SCAN}/v0/closed-rounds`),
  snapshots: (pageSize: number, pageToken?: string) =>
    get<SnapshotPage>(`${INDEXER}/acs-snapshots?page_size=${pageSize}${pageToken ? `&page_token=${q(pageToken)}` : ''}`),
  updatesPerHour: (hours: number) => get<UpdatesPerHour>(`${INDEXER}/updates-per-hour?hours=${hours}`),
  migrationInfo: (migrationId: number) => post<MigrationInfo>(`${SCAN}/v0/backfilling/migration-info`, { migration_id: migrationId }),
  updatesBefore: (migrationId: number, synchronizerId: string, before: string, count: number, atOrAfter?: string) =>
    post<{ transactions: HistoryUpdate[] }>(`${SCAN}/v0/backfilling/updates-before`, {
      migration_id: migrationId,
      synchronizer_id: synchronizerId,
      before,
      ...(atOrAfter === undefined ? {} : { at_or_after: atOrAfter }),
      count,
      daml_value_encoding: 'compact_json',
    }),
  event: (updateId: string) => get<EventItem>(`${SCAN}/v0/events/${q(updateId)}`),
  updateByHash: (hash: string) => get<HistoryUpdate>(`${SCAN}/v2/updates/hash/${q(hash)}`),
  holdingsSummary: (migrationId: number, recordTime: string, party: string) =>
    post<{ summaries: HoldingsSummary[]; computed_as_of_round: number }>(`${SCAN}/v0/holdings/summary`, {
      migration_id: migrationId,
      record_time: recordTime,
      owner_party_ids: [party],
    }),
  holdings: (migrationId: number, recordTime: string, party: string, pageSize: number, after?: string) =>
    post<HoldingsPage>(`${SCAN}/v2/holdings/state`, {
      migration_id: migrationId,
      record_time: recordTime,
      owner_party_ids: [party],
      page_size: pageSize,
      ...(after === undefined ? {} : { after }),
    }),
  ansByParty: (party: string) => get<{ entry: AnsEntry }>(`${SCAN}/v0/ans-entries/by-party/${q(party)}`),
  ansEntries: (prefix: string, pageSize: number) =>
    get<{ entries: AnsEntry[] }>(`${SCAN}/v0/ans-entries?name_prefix=${q(prefix)}&page_size=${pageSize}`),
  featuredApp: (party: string) => get<{ featured_app_right: Contract | null }>(`${SCAN}/v0/featured-apps/${q(party)}`),
  preapproval: (party: string) =>
    get<{ transfer_preapproval: ContractWithState<{ provider: string; expiresAt: string; lastRenewedAt: string }> }>(
      `${SCAN}/v0/transfer-preapprovals/by-party/${q(party)}`,
    ),
  voteRequests: () => get<{ dso_rules_vote_requests: Contract<VoteRequestPayload>[] }>(`${SCAN}/v0/admin/sv/voterequests`),
  voteResults: (limit: number) => post<{ dso_rules_vote_results: VoteResult[] }>(`${SCAN}/v0/admin/sv/voteresults`, { limit }),
  status: () => get<IngestStatus>('/status'),
  partyActivity: (party: string, filter: ActivityFilter, pageSize: number, pageToken?: string) =>
    get<ActivitiesPage>(
      `${INDEXER}/parties/${q(party)}/activity?${activityQuery(filter)}&page_size=${pageSize}${pageToken ? `&page_token=${q(pageToken)}` : ''}`,
    ),
  activityCsv,
  /** Days as YYYY-MM-DD; `to` is the day after the last one. */
  dailyMintBurn: (from: string, to: string) => get<DailyMintBurn>(`${INDEXER}/network/daily-mint-burn?from=${q(from)}&to=${q(to)}`),
  /** Days as YYYY-MM-DD; `to` is the day after the last one. */
  partyDailyBalances: (party: string, from: string, to: string) =>
    get<PartyDailyBalances>(`${INDEXER}/parties/${q(party)}/balances/daily?from=${q(from)}&to=${q(to)}`),
  /** Instants on the interval's boundaries; `to` is the end of the last period. */
  networkSeries: (interval: 'day' | 'hour', from: string, to: string) =>
    get<NetworkSeries>(`${INDEXER}/network/series?interval=${interval}&from=${q(from)}&to=${q(to)}`),
  rewardLeaderboard: (reward: Reward, from: string, to: string, limit: number) =>
    get<RewardLeaderboard>(`${INDEXER}/leaderboards/rewards?reward=${reward}&from=${q(from)}&to=${q(to)}&limit=${limit}`),
};
