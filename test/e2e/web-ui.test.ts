/**
 * The web UI in headless Chromium, against the real server loaded with a simulated network: every
 * view shows the figures the API answers (fetched here over HTTP, not through the UI's code), the
 * lookups and the party view work, paging follows the API's tokens, errors read as messages, and
 * axe-core finds no serious accessibility violation. A screenshot of each view at phone and
 * desktop width is saved under test-artifacts/screenshots.
 */
import type { Browser, Page } from 'playwright-core';
import type { CanonicalItem, TransactionUpdate } from '../../src/domain/items';
import { catchUpSnapshots } from '../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../src/internal/config';
import { createMetrics } from '../../src/internal/metrics';
import { useTestDatabase } from '../support/database/database';
import { request, startTestApi, type TestApi } from '../support/http/http';
import { load } from '../support/items/network-items';
import { simulatedItems } from '../support/items/simulated-network';
import {
  attributeOf,
  launchBrowser,
  openPage,
  screenshot,
  seriousAccessibilityViolations,
  type WatchedPage,
  type WidthName,
} from '../support/browser/browser';

/** Thousands grouping of a decimal string, written independently of the UI's formatter. */
function grouped(decimal: string | number): string {
  const [whole = '', fraction] = String(decimal).split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  return `${negative ? '-' : ''}${groups.join(',')}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** The parts of the API's answers these tests read. */
interface Payload<P> {
  contract_id: string;
  created_at: string;
  payload: P;
}
type Round = { round: { number: string } };
interface TransferConfig {
  createFee: { fee: string };
  holdingFee: { rate: string };
  lockHolderFee: { fee: string };
  transferFee: { steps: { _1: string }[] };
}
interface DsoAnswer {
  dso_party_id: string;
  latest_mining_round: { contract: Payload<{ amuletPrice: string }> };
  amulet_rules: { contract: Payload<{ configSchedule: { initialValue: { transferConfig: TransferConfig } } }> };
  dso_rules: { contract: Payload<{ svs: [string, { name: string }][] }> };
}
type RoundMap = Record<string, { contract: Payload<Round> }>;
interface EventAnswer {
  verdict: { verdict_result: string };
  traffic_summary: { total_traffic_cost: number };
  update: { events_by_id: Record<string, unknown> };
}
interface HoldingsAnswer {
  created_events: { contract_id: string }[];
  next_page_token: string | null;
}
interface SummaryAnswer {
  summaries: { total_coin_holdings: string; total_unlocked_coin: string; total_locked_coin: string; total_available_coin: string }[];
}
interface Action {
  tag: string;
  value: Record<string, unknown>;
}
interface StatusAnswer {
  writer: string;
  migrations: { updates: number; last_snapshot: string | null }[];
  streams: { stream: string; position: string }[];
}

/** The items up to and including the last one that creates a VoteRequest (a new one, or one re-created with a vote). */
function untilLastVoteRequest(items: CanonicalItem[]): CanonicalItem[] {
  const createsVoteRequest = (item: CanonicalItem) =>
    Object.values((item.update as Partial<TransactionUpdate> | null | undefined)?.events_by_id ?? {}).some(
      (e) => e.event_type === 'created_event' && e.template_id.endsWith(':Splice.DsoRules:VoteRequest'),
    );
  let last = items.length - 1;
  while (last >= 0 && !createsVoteRequest(items[last]!)) last -= 1;
  return items.slice(0, last + 1);
}

const WIDTHS: WidthName[] = ['desktop', 'phone'];

describe('web UI', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let browser: Browser;
  // About ten hours of a network (three ACS snapshots, rounds, votes, ANS names, external-party transfers),
  // ending just after a vote request is created or voted on, so that one is in flight.
  const items: CanonicalItem[] = untilLastVoteRequest(simulatedItems({ seed: 5, updates: 4000, meanUpdateGapMs: 12_000, migrations: 1 }));
  const transactions = items
    .map((i) => i.update)
    .filter((u): u is TransactionUpdate => u !== null && u !== undefined && 'events_by_id' in u);
  const open: WatchedPage[] = [];

  const get = async <T>(path: string): Promise<T> => {
    const res = await request(api.url, 'GET', path);
    expect(res.status).toBe(200);
    return res.json as T;
  };
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await request(api.url, 'POST', path, body);
    expect(res.status).toBe(200);
    return res.json as T;
  };

  beforeAll(async () => {
    await load(t.db, items);
    await catchUpSnapshots(t.db);
    await catchUpHoldingTotals(t.db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    // Expiry against the newest record time: the simulated network lies in the past.
    api = await startTestApi(t, { env: { API_CLOCK: 'ledger', LEDGER_AUTH_DISABLED: 'true' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });
  afterEach(() => {
    // Nothing the UI does may log an error or throw (a blocked script or style, a failed render).
    for (const w of open.splice(0)) expect(w.problems).toEqual([]);
  });

  async function visit(width: WidthName, hash: string, ready: (page: Page) => Promise<unknown>, allowedProblems: RegExp[] = []) {
    const watched = await openPage(browser, width);
    await watched.page.goto(`${api.url}/${hash}`);
    await ready(watched.page);
    open.push({
      page: watched.page,
      get problems() {
        return watched.problems.filter((p) => !allowedProblems.some((a) => a.test(p)));
      },
    });
    return watched.page;
  }
  const figure = (page: Page, name: string) => page.locator(`[data-figure="${name}"]`).first();
  const figureText = (page: Page, name: string) => figure(page, name).innerText();
  const columnTexts = (page: Page, table: string, column: number) =>
    page.locator(`table:has(caption:text-is("${table}")) tbody tr td:nth-child(${column})`).allInnerTexts();

  async function finish(page: Page, view: string, width: WidthName) {
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, view, width);
  }

  interface Snapshot {
    migration_id: number;
    record_time: string;
    contract_count: number;
    unlocked_amulet: string;
    locked_amulet: string;
  }

  describe.each(WIDTHS)('at %s width', (width) => {
    it('network: DSO, migration, rounds, price, fees, supply and the SVs with their scans', async () => {
      const page = await visit(width, '#/network', (p) => p.locator('[data-figure="Unlocked amulet"]').waitFor());
      const dso = await get<DsoAnswer>('/api/scan/v0/dso');
      expect(await figure(page, 'DSO party').locator('a').getAttribute('title')).toBe(dso.dso_party_id);
      expect(await figureText(page, 'Current migration')).toBe(
        String((await get<{ migration_id: number }>('/api/scan/v0/migrations/last')).migration_id),
      );
      expect(await figureText(page, 'Amulet price (USD)')).toBe(grouped(dso.latest_mining_round.contract.payload.amuletPrice));
      expect(await figureText(page, 'Super validators')).toBe(String(dso.dso_rules.contract.payload.svs.length));
      const fees = dso.amulet_rules.contract.payload.configSchedule.initialValue.transferConfig;
      expect(await figureText(page, 'Create fee (USD)')).toBe(grouped(fees.createFee.fee));
      expect(await figureText(page, 'Holding fee (USD per round)')).toBe(grouped(fees.holdingFee.rate));
      expect(await figureText(page, 'Lock holder fee (USD)')).toBe(grouped(fees.lockHolderFee.fee));
      expect(await columnTexts(page, 'Transfer fee steps', 1)).toEqual(fees.transferFee.steps.map((s) => grouped(s._1)));

      const rounds = await post<{ open_mining_rounds: RoundMap; issuing_mining_rounds: RoundMap }>(
        '/api/scan/v0/open-and-issuing-mining-rounds',
        {
          cached_open_mining_round_contract_ids: [],
          cached_issuing_round_contract_ids: [],
        },
      );
      const numbers = (m: RoundMap) =>
        Object.values(m)
          .map((c) => Number(c.contract.payload.round.number))
          .sort((a, b) => a - b);
      expect((await columnTexts(page, 'Open and issuing rounds', 1)).map(Number)).toEqual([
        ...numbers(rounds.open_mining_rounds),
        ...numbers(rounds.issuing_mining_rounds),
      ]);
      const closed = await get<{ rounds: Payload<Round>[] }>('/api/scan/v0/closed-rounds');
      expect((await columnTexts(page, 'Closed rounds', 2)).sort()).toEqual(closed.rounds.map((r) => r.created_at).sort());

      const { snapshots } = await get<{ snapshots: Snapshot[] }>('/api/indexer/v0/acs-snapshots?page_size=100');
      expect(snapshots.length).toBeGreaterThanOrEqual(3);
      const latest = snapshots[0]!;
      expect(await figureText(page, 'Unlocked amulet')).toBe(grouped(latest.unlocked_amulet));
      expect(await figureText(page, 'Locked amulet')).toBe(grouped(latest.locked_amulet));
      expect(await figureText(page, 'Active contracts')).toBe(grouped(latest.contract_count));
      expect(await figureText(page, 'Latest snapshot')).toBe(`${latest.record_time} (migration ${latest.migration_id})`);
      // The chart is drawn, and its figures are the snapshots', newest first.
      expect(await page.locator('.chart canvas').count()).toBeGreaterThan(0);
      await page.getByText(/Figures of the \d+ snapshots shown/).click();
      expect(await columnTexts(page, 'Supply at each snapshot', 3)).toEqual(snapshots.map((s) => grouped(s.unlocked_amulet)));

      const scans = await get<{ scans: { scans: { svName: string; publicUrl: string }[] }[] }>('/api/scan/v0/scans');
      const svs: [string, { name: string }][] = dso.dso_rules.contract.payload.svs;
      expect(await columnTexts(page, 'Super validators', 1)).toEqual(svs.map(([, info]) => info.name));
      const urlsOf = (name: string) =>
        scans.scans.flatMap((s) => s.scans.filter((x) => x.svName === name).map((x) => x.publicUrl)).join(', ');
      expect(await columnTexts(page, 'Super validators', 6)).toEqual(svs.map(([, info]) => urlsOf(info.name) || 'none announced'));
      await finish(page, 'network', width);
    });

    it('activity: the latest updates, newest first, each opening into its tree, verdict and traffic; older pages; updates per hour', async () => {
      const page = await visit(width, '#/activity', (p) => p.locator('li.update').first().waitFor());
      // The newest updates, from the items themselves (import updates have no place in time).
      const byTime = items
        .map((i) => i.update)
        .filter((u): u is NonNullable<CanonicalItem['update']> => u !== undefined && u !== null && !u.record_time.startsWith('0001-'))
        .sort((a, b) => (a.record_time < b.record_time ? 1 : a.record_time > b.record_time ? -1 : a.update_id < b.update_id ? 1 : -1));
      const shownIds = () => attributeOf(page.locator('li.update'), 'data-update-id');
      expect(await shownIds()).toEqual(byTime.slice(0, 20).map((u) => u.update_id));

      const first = byTime[0]!;
      const event = await get<EventAnswer>(`/api/scan/v0/events/${first.update_id}`);
      await page.locator('.update-toggle').first().click();
      const detail = page.locator('.update-detail').first();
      await detail.locator('[data-figure="Result"]').waitFor();
      expect(await detail.locator('[data-figure="Result"]').innerText()).toBe(event.verdict.verdict_result);
      expect(await detail.locator('[data-figure="Total traffic cost (bytes)"]').innerText()).toBe(
        grouped(event.traffic_summary.total_traffic_cost),
      );
      expect(await detail.locator('.event-tree li').count()).toBe(Object.keys(event.update.events_by_id).length);
      expect(await page.locator('.update-toggle').first().getAttribute('aria-expanded')).toBe('true');

      await page.getByRole('button', { name: 'Show older updates' }).click();
      await page.locator('li.update').nth(20).waitFor();
      expect(await shownIds()).toEqual(byTime.slice(0, 40).map((u) => u.update_id));

      const perHour = await get<{ buckets: { hour: string; updates: number }[] }>('/api/indexer/v0/updates-per-hour?hours=24');
      await page.getByText('Figures per hour').click();
      expect(await columnTexts(page, 'Updates per hour', 1)).toEqual(perHour.buckets.map((b) => b.hour));
      expect(await columnTexts(page, 'Updates per hour', 2)).toEqual(perHour.buckets.map((b) => grouped(b.updates)));
      expect(perHour.buckets.reduce((n, b) => n + b.updates, 0)).toBeGreaterThan(0);
      // A wider window asks the API for it.
      const week = await get<{ buckets: { hour: string; updates: number }[] }>('/api/indexer/v0/updates-per-hour?hours=168');
      await page.getByLabel('Window').selectOption('168');
      await page.locator('table:has(caption:text-is("Updates per hour")) tbody tr').nth(167).waitFor();
      expect(await columnTexts(page, 'Updates per hour', 2)).toEqual(week.buckets.map((b) => grouped(b.updates)));
      await finish(page, 'activity', width);
    });
  });

  it('lookup by update id, by external transaction hash, and an unknown one', async () => {
    const transactions = items
      .map((i) => i.update)
      .filter((u): u is TransactionUpdate => u !== null && u !== undefined && 'events_by_id' in u);
    const external = transactions.find((u) => u.external_transaction_hash !== undefined);
    expect(external).toBeDefined();
    const plain = transactions.find((u) => u.external_transaction_hash === undefined && !u.record_time.startsWith('0001-'))!;
    const page = await visit('desktop', '#/activity', (p) => p.getByLabel('Update id or external transaction hash').waitFor(), [
      /status of 40[04]/,
    ]);
    const lookup = async (text: string) => {
      await page.getByLabel('Update id or external transaction hash').fill(text);
      await page.getByRole('button', { name: 'Find' }).click();
    };
    const card = page.locator('.update-card').first();

    await lookup(plain.update_id);
    await card.locator('[data-figure="Update id"]').waitFor();
    expect(await card.locator('[data-figure="Update id"]').innerText()).toBe(plain.update_id);
    expect(await card.locator('[data-figure="Record time"]').innerText()).toBe(plain.record_time);
    expect(page.url()).toContain(`#/activity/${plain.update_id}`);

    await lookup(external!.external_transaction_hash!);
    await card.locator('[data-figure="Update id"]').filter({ hasText: external!.update_id }).waitFor();
    expect(await card.locator('[data-figure="External transaction hash"]').innerText()).toBe(external!.external_transaction_hash);

    const unknown = `1220${'ab'.repeat(32)}`;
    await lookup(unknown);
    await expect(page.getByRole('alert').innerText()).resolves.toContain(`No update has the id or external transaction hash ${unknown}.`);
    await screenshot(page, 'activity-lookup', 'desktop');
  });

  describe.each(WIDTHS)('party view at %s width', (width) => {
    it('holdings at the chosen snapshot, paged by the API tokens; ANS name, featured-app right and preapproval', async () => {
      const { snapshots } = await get<{ snapshots: Snapshot[] }>('/api/indexer/v0/acs-snapshots?page_size=100');
      const [latest, older] = [snapshots[0]!, snapshots[1]!];
      const holdings = (s: Snapshot, party: string, after?: string) =>
        post<HoldingsAnswer>('/api/scan/v2/holdings/state', {
          migration_id: s.migration_id,
          record_time: s.record_time,
          owner_party_ids: [party],
          // The party view's page size.
          page_size: 10,
          ...(after ? { after } : {}),
        });
      // The party with the most amulets created, which holds more than a page of them at the latest snapshot.
      const created = new Map<string, number>();
      for (const u of transactions)
        for (const e of Object.values(u.events_by_id))
          if (e.event_type === 'created_event' && /:Splice\.Amulet:(Locked)?Amulet$/.test(e.template_id)) {
            const args = e.create_arguments as { owner?: string; amulet?: { owner: string } };
            const who = args.owner ?? args.amulet!.owner;
            created.set(who, (created.get(who) ?? 0) + 1);
          }
      const candidates = [...created].sort((a, b) => b[1] - a[1]).map(([p]) => p);
      let owner: string | undefined;
      for (const p of candidates.slice(0, 10)) {
        if ((await holdings(latest, p)).next_page_token === null) continue;
        owner = p;
        break;
      }
      if (owner === undefined) throw new Error('no party holds more than a page of amulets in this dataset');

      // A party without an ANS name or a preapproval gets 404s for them, which Chromium logs.
      const page = await visit(
        width,
        `#/party/${encodeURIComponent(owner)}`,
        (p) => p.locator('[data-figure="Total holdings"]').waitFor(),
        [/status of 404/],
      );
      const summary = async (s: Snapshot) =>
        (
          await post<SummaryAnswer>('/api/scan/v0/holdings/summary', {
            migration_id: s.migration_id,
            record_time: s.record_time,
            owner_party_ids: [owner],
          })
        ).summaries[0]!;
      const now = await summary(latest);
      expect(await figureText(page, 'Total holdings')).toBe(grouped(now.total_coin_holdings));
      expect(await figureText(page, 'Unlocked')).toBe(grouped(now.total_unlocked_coin));
      expect(await figureText(page, 'Locked')).toBe(grouped(now.total_locked_coin));
      expect(await figureText(page, 'Available (unlocked less fees)')).toBe(grouped(now.total_available_coin));

      const contractIds = () => attributeOf(page.locator('table:has(caption:text-is("Amulets")) tbody tr td:first-child code'), 'title');
      const page1 = await holdings(latest, owner);
      const page2 = await holdings(latest, owner, page1.next_page_token ?? undefined);
      expect(await contractIds()).toEqual(page1.created_events.map((c) => c.contract_id));
      // The amulets' pager: the activity history and the rewards have their own.
      const pager = page.getByRole('navigation', { name: 'Amulet pages' });
      await pager.getByRole('button', { name: 'Next page' }).click();
      await pager.getByText('Page 2').waitFor();
      await page.locator(`code[title="${page2.created_events[0]!.contract_id}"]`).waitFor();
      expect(await contractIds()).toEqual(page2.created_events.map((c) => c.contract_id));
      await pager.getByRole('button', { name: 'Previous page' }).click();
      await page.locator(`code[title="${page1.created_events[0]!.contract_id}"]`).waitFor();

      // An older snapshot from the picker.
      const then = await summary(older);
      await page.getByLabel('Snapshot').selectOption(`${older.migration_id}|${older.record_time}`);
      await page.locator(`[data-figure="Total holdings"]:text-is("${grouped(then.total_coin_holdings)}")`).waitFor();
      expect(await figureText(page, 'Locked')).toBe(grouped(then.total_locked_coin));

      const ans = await request(api.url, 'GET', `/api/scan/v0/ans-entries/by-party/${encodeURIComponent(owner)}`);
      if (ans.status === 200) expect(await figureText(page, 'Name')).toBe((ans.json as { entry: { name: string } }).entry.name);
      else await page.getByText('No ANS name.').waitFor();
      const preapproval = await request(api.url, 'GET', `/api/scan/v0/transfer-preapprovals/by-party/${encodeURIComponent(owner)}`);
      if (preapproval.status === 200)
        expect(await figure(page, 'Provider').locator('a').getAttribute('title')).toBe(
          (preapproval.json as { transfer_preapproval: { contract: Payload<{ provider: string }> } }).transfer_preapproval.contract.payload
            .provider,
        );
      else await page.getByText('No transfer preapproval.').waitFor();
      await finish(page, 'party', width);
    });
  });

  it('party view: a featured app shows its right; a malformed party id shows the API message', async () => {
    const { featured_apps } = await get<{ featured_apps: Payload<{ provider: string }>[] }>('/api/scan/v0/featured-apps');
    expect(featured_apps.length).toBeGreaterThan(0);
    const right = featured_apps[0]!;
    const page = await visit(
      'desktop',
      `#/party/${encodeURIComponent(right.payload.provider)}`,
      (p) => p.locator('[data-figure="Granted at"]').waitFor(),
      [/status of 40[04]/],
    );
    expect(await figureText(page, 'Granted at')).toBe(right.created_at);
    expect(await figure(page, 'Contract').locator('code').getAttribute('title')).toBe(right.contract_id);

    // Each part of the view asks its own operation; each shows that operation's 400 message.
    const bad = await request(api.url, 'GET', '/api/scan/v0/featured-apps/not-a-party');
    expect(bad.status).toBe(400);
    await page.getByLabel('Party id').fill('not-a-party');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const message = (bad.json as { error: string }).error;
    const featuredError = page.getByRole('alert').filter({ hasText: 'featured-app right' });
    await featuredError.waitFor();
    expect(await featuredError.innerText()).toBe(
      `Could not load the featured-app right. ${message} (HTTP 400 from GET /api/scan/v0/featured-apps/not-a-party)`,
    );
  });

  describe.each(WIDTHS)('ANS, governance and indexer at %s width', (width) => {
    it('ANS directory with prefix search, paged by page size', async () => {
      const page = await visit(width, '#/ans', (p) => p.locator('table:has(caption:text-is("ANS entries")) tbody tr').first().waitFor());
      const all = await get<{ entries: { name: string; user: string }[] }>('/api/scan/v0/ans-entries?page_size=25&name_prefix=');
      expect(await columnTexts(page, 'ANS entries', 1)).toEqual(all.entries.map((e) => e.name));
      const prefix = all.entries[all.entries.length - 1]!.name.slice(0, 3);
      const some = await get<{ entries: { name: string }[] }>(
        `/api/scan/v0/ans-entries?page_size=25&name_prefix=${encodeURIComponent(prefix)}`,
      );
      await page.getByLabel('Names starting with').fill(prefix);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText(`starting with “${prefix}”`).waitFor();
      expect(await columnTexts(page, 'ANS entries', 1)).toEqual(some.entries.map((e) => e.name));
      if (some.entries.length === 25) {
        const more = await get<{ entries: { name: string }[] }>(
          `/api/scan/v0/ans-entries?page_size=50&name_prefix=${encodeURIComponent(prefix)}`,
        );
        await page.getByRole('button', { name: 'Show more names' }).click();
        await page.locator('table:has(caption:text-is("ANS entries")) tbody tr').nth(25).waitFor();
        expect(await columnTexts(page, 'ANS entries', 1)).toEqual(more.entries.map((e) => e.name));
      }
      await finish(page, 'ans', width);
    });

    it('governance: active and closed vote requests with their votes', async () => {
      const page = await visit(width, '#/governance', (p) => p.getByRole('heading', { name: 'Closed vote requests' }).waitFor());
      const active = await get<{ dso_rules_vote_requests: Payload<{ action: Action; voteBefore: string }>[] }>(
        '/api/scan/v0/admin/sv/voterequests',
      );
      const closed = await post<{ dso_rules_vote_results: { request: { action: Action; votes: unknown[] } }[] }>(
        '/api/scan/v0/admin/sv/voteresults',
        { limit: 20 },
      );
      expect(closed.dso_rules_vote_results.length).toBeGreaterThan(0);
      const section = (title: string) => page.locator(`section:has(h2:text-is("${title}"))`);
      await section('Closed vote requests').locator('li.card').first().waitFor();
      const actionOf = (action: Action) => {
        const inner = Object.values(action.value).find((v) => typeof v === 'object' && v !== null && 'tag' in v) as
          { tag: string } | undefined;
        return inner ? `${action.tag} / ${inner.tag}` : action.tag;
      };
      expect(await section('Closed vote requests').locator('li.card h3').allInnerTexts()).toEqual(
        closed.dso_rules_vote_results.map((r) => actionOf(r.request.action)),
      );
      expect(await section('Closed vote requests').locator('ul.votes').first().locator('li').count()).toBe(
        closed.dso_rules_vote_results[0]!.request.votes.length,
      );
      expect(active.dso_rules_vote_requests.length).toBeGreaterThan(0);
      expect(await section('Active vote requests').locator('li.card h3').allInnerTexts()).toEqual(
        active.dso_rules_vote_requests.map((c) => actionOf(c.payload.action)),
      );
      expect(await section('Active vote requests').locator('li.card .vote-status').allInnerTexts()).toEqual(
        active.dso_rules_vote_requests.map((c) => expect.stringContaining(`open until ${c.payload.voteBefore}`) as unknown as string),
      );
      await finish(page, 'governance', width);
    });

    it('indexer: writer role, ingestion and snapshots as /status reports them', async () => {
      const page = await visit(width, '#/indexer', (p) => p.locator('[data-figure="Writer role"]').waitFor());
      const status = await get<StatusAnswer>('/status');
      expect(await figureText(page, 'Writer role')).toBe(status.writer);
      expect(await columnTexts(page, 'Migrations', 2)).toEqual(status.migrations.map((m) => grouped(m.updates)));
      expect(await columnTexts(page, 'Migrations', 5)).toEqual(status.migrations.map((m) => m.last_snapshot ?? 'none yet'));
      expect(await columnTexts(page, 'Ingestion streams', 1)).toEqual(status.streams.map((s) => s.stream));
      expect(await columnTexts(page, 'Ingestion streams', 2)).toEqual(status.streams.map((s) => s.position));
      await finish(page, 'indexer', width);
    });
  });

  it('indexer view of a mirror: each upstream, its attestation record and a stall, as /status reports them', async () => {
    // What an attested scan source reports as it reads four upstreams (src/ingest/sources/attested-scan-source.ts).
    const metrics = createMetrics();
    metrics.writer.role = 'active';
    const upstreams = ['http://scan-a.test', 'http://scan-b.test', 'http://scan-c.test', 'http://scan-d.test'];
    for (const u of upstreams.slice(0, 3)) metrics.sourceRequest('scan', u, 'ok');
    metrics.sourceRequest('scan', upstreams[3]!, 'failed');
    metrics.attestationObserver.counted(upstreams[0]!, 'agreed', 120);
    metrics.attestationObserver.counted(upstreams[1]!, 'agreed', 119);
    metrics.attestationObserver.counted(upstreams[1]!, 'disagreed', 1);
    metrics.attestationObserver.disagreed(upstreams[1]!, 'migration 0, 2025-01-01T09:59:00.000000Z', 'ab12', 'cd34');
    metrics.attestationObserver.counted(upstreams[2]!, 'agreed', 120);
    metrics.attestationObserver.counted(upstreams[3]!, 'unavailable', 4);
    metrics.attestationObserver.stalled({ position: 'migration 0, 2025-01-01T10:00:00.000000Z', reason: 'conflict' });
    const mirror = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' }, metrics });
    try {
      const watched = await openPage(browser, 'desktop');
      open.push(watched);
      const page = watched.page;
      await page.goto(`${mirror.url}/#/indexer`);
      await page.locator('table:has(caption:text-is("Attested upstreams")) tbody tr').first().waitFor();
      const status = (await request(mirror.url, 'GET', '/status')).json as {
        writer: string;
        sources: { upstream: string; last_outcome: string }[];
        attestation: {
          stalled: { position: string; reason: string };
          upstreams: { upstream: string; state: string; agreed: number; last_disagreement: { position: string; at: string } | null }[];
        };
      };
      expect(await figureText(page, 'Writer role')).toBe('active');
      expect(await columnTexts(page, 'Upstreams', 2)).toEqual(status.sources.map((u) => u.upstream));
      expect(await columnTexts(page, 'Upstreams', 3)).toEqual(status.sources.map((u) => u.last_outcome));
      expect(await columnTexts(page, 'Attested upstreams', 1)).toEqual(upstreams);
      expect(await columnTexts(page, 'Attested upstreams', 2)).toEqual(status.attestation.upstreams.map((u) => u.state));
      expect(await columnTexts(page, 'Attested upstreams', 3)).toEqual(status.attestation.upstreams.map((u) => grouped(u.agreed)));
      expect(await columnTexts(page, 'Attested upstreams', 6)).toEqual(
        status.attestation.upstreams.map((u) =>
          u.last_disagreement ? `${u.last_disagreement.position} (${u.last_disagreement.at})` : '—',
        ),
      );
      expect(status.attestation.upstreams[1]!.last_disagreement).not.toBeNull();
      const stall = page.getByRole('alert').filter({ hasText: 'Stalled at' });
      expect(await stall.innerText()).toContain(`Stalled at ${status.attestation.stalled.position}`);
      expect(await stall.innerText()).toContain(status.attestation.stalled.reason);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'indexer-mirror', 'desktop');
    } finally {
      await mirror.close();
    }
  });

  it('keyboard: skip link to the content, views by their links, an update opened with Enter', async () => {
    const page = await visit('desktop', '#/network', (p) => p.locator('[data-figure="DSO party"]').waitFor());
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await page.getByRole('link', { name: 'Activity' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.update-toggle').first().focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('.update-toggle').first().getAttribute('aria-expanded')).toBe('true');
    await page.locator('.update-detail [data-figure="Result"]').first().waitFor();
  });

  it('a URL written into a contract is a link only when it is http or https', async () => {
    const real = await post<{ dso_rules_vote_results: { request: { reason: { url: string; body: string } } }[] }>(
      '/api/scan/v0/admin/sv/voteresults',
      { limit: 20 },
    );
    // The same answer, with a script URL and a web URL as the first two reasons.
    const [first, second] = real.dso_rules_vote_results;
    first!.request.reason = { url: 'javascript:alert(1)', body: 'script reason' };
    second!.request.reason = { url: 'https://forum.example/t/1', body: 'web reason' };
    const watched = await openPage(browser, 'desktop');
    open.push(watched);
    await watched.page.route('**/api/scan/v0/admin/sv/voteresults', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(real) }),
    );
    await watched.page.goto(`${api.url}/#/governance`);
    await watched.page.getByText('web reason').waitFor();
    expect(await watched.page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await watched.page.getByText('javascript:alert(1)').count()).toBe(1);
    expect(await watched.page.locator('a[href="https://forum.example/t/1"]').count()).toBe(1);
  });

  it('an unknown view and an API that cannot answer are messages, not a blank page', async () => {
    const page = await visit('desktop', '#/nowhere', (p) => p.getByRole('heading', { name: 'Not found' }).waitFor(), [/status of 503/]);
    // Every API call fails from here on, as when the service is down.
    await page.route('**/api/**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"error":"The database is unavailable at the moment; try again shortly."}',
      }),
    );
    await page.getByRole('link', { name: 'Network', exact: true }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await page.getByRole('alert').first().innerText()).toContain('The database is unavailable at the moment; try again shortly.');
    expect(await page.getByRole('heading', { name: 'Network', level: 1 }).isVisible()).toBe(true);
    await screenshot(page, 'error', 'desktop');
  });
});
