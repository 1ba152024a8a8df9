/**
 * The web UI's views of the parsed history in headless Chromium, against the real server loaded with a
 * simulated network: the party view's activity history (pages by the API's tokens, the kind and day
 * filter), its CSV download (the same bytes as the CSV export of the range) and its reward claims; the
 * network view's daily mint and burn; the party's balance and the network's supply at each day's end,
 * charted; the validators view's reward leaderboards. Every expected figure
 * comes from the API's answers, fetched here over HTTP, not through the UI's code. The simulator claims
 * no rewards, so reward claims are added as rows of the activity projection. Screenshots of each view at
 * phone and desktop width go under test-artifacts/screenshots (the desktop ones of the party, network and
 * validators views are copied to docs/images for docs/web-ui.md).
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { catchUpSnapshots } from '../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../src/internal/config';
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

/** Exact sums of the API's decimals (10 places), as text with 10 places. */
const units = (x: string) => {
  const negative = x.startsWith('-');
  const [whole = '0', fraction = ''] = x.replace('-', '').split('.');
  const u = BigInt(whole) * 10_000_000_000n + BigInt(fraction.padEnd(10, '0'));
  return negative ? -u : u;
};
const sum = (xs: string[]) => {
  const total = xs.reduce((a, x) => a + units(x), 0n);
  const abs = total < 0n ? -total : total;
  return `${total < 0n ? '-' : ''}${abs / 10_000_000_000n}.${(abs % 10_000_000_000n).toString().padStart(10, '0')}`;
};

const dayAfter = (day: string, n = 1) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

interface ActivityRow {
  record_time: string;
  event_id: string;
  update_id: string;
  kind: string;
  leg: number;
  amount: string;
  fees: string;
  round: number | null;
}
interface ActivityAnswer {
  activities: ActivityRow[];
  next_page_token: string | null;
}
interface DayAnswer {
  day: string;
  minted: {
    total: string;
    mint: string;
    tap: string;
    app_reward: string;
    validator_reward: string;
    sv_reward: string;
    validator_faucet: string;
  };
  burned: { total: string; fees: string; holding_fees: string; traffic: string };
  transfers: number;
  transfer_volume: string;
}
interface BalanceDay {
  day: string;
  at: string;
  holdings: number;
  total_unlocked_coin: string;
  total_locked_coin: string;
  accumulated_holding_fees_total: string;
  total_available_coin: string;
}
interface SupplyAnswer {
  at: string;
  snapshot: string | null;
  unlocked: string;
  locked: string;
  total: string;
}
interface LeaderboardAnswer {
  from: string;
  to: string;
  leaders: { rank: number; party: string; amount: string; claims: number }[];
}

const WIDTHS: WidthName[] = ['desktop', 'phone'];
const REWARD_KINDS = ['app_reward', 'validator_reward', 'sv_reward', 'validator_faucet', 'unclaimed_reward'] as const;
/** The party view's page size. */
const PAGE = 20;

describe('web UI over the parsed history', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let browser: Browser;
  // About two and a half days of a network, so that daily figures and day filters have several days.
  const items = simulatedItems({ seed: 'web-ui-history', updates: 1500, migrations: 1, meanUpdateGapMs: 150_000, tickSeconds: 7200 });
  const open: WatchedPage[] = [];
  /** The party with the most activities, and the parties that follow it. */
  let parties: string[] = [];
  let party = '';

  const get = async <T>(path: string): Promise<T> => {
    const res = await request(api.url, 'GET', path);
    expect(res.status).toBe(200);
    return res.json as T;
  };
  const activityPath = (query: string) => `/api/indexer/v0/parties/${encodeURIComponent(party)}/activity?${query}`;
  /** The newest UTC day of the ledger, as /status reports it. */
  const newestDay = async () => {
    const status = await get<{ migrations: { last_record_time: string | null }[] }>('/status');
    return status.migrations
      .map((m) => m.last_record_time)
      .filter((x): x is string => x !== null)
      .sort()
      .at(-1)!
      .slice(0, 10);
  };

  beforeAll(async () => {
    await load(t.db, items);
    await catchUpSnapshots(t.db);
    await catchUpHoldingTotals(t.db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const busiest = await t.pool.query<{ party: string }>(
      `select party from activities where party like '%::%' group by party order by count(*) desc, party limit 8`,
    );
    parties = busiest.rows.map((r) => r.party);
    party = parties[0]!;
    const span = await t.pool.query<{ migration_id: string; first: number; last: number }>(
      `select migration_id, (extract(epoch from min(record_time)) * 1000)::float8 as first, (extract(epoch from max(record_time)) * 1000)::float8 as last
       from activities group by migration_id order by migration_id desc limit 1`,
    );
    const { migration_id: migration, first, last } = span.rows[0]!;
    // Reward claims spread over the network's time: 30 of the busiest party (more than a page), of every
    // reward kind, and claims of the others with amounts that differ per party.
    const step = Math.floor((last - first) / 60);
    for (let i = 0; i < 60; i += 1) {
      const who = i % 2 === 0 ? party : parties[(i % (parties.length - 1)) + 1]!;
      const time = new Date(first + step * i + 1).toISOString().replace('Z', '017Z');
      await t.pool.query(
        `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, counterparties)
         values ($1, $2::timestamptz, $3, 0, $4, 0, $5, $6, $7::numeric, 0, '{}')`,
        [
          migration,
          time,
          `claim-${i}`,
          REWARD_KINDS[Math.floor(i / 2) % REWARD_KINDS.length],
          who,
          i,
          `${((i * 37) % 11) + 1}.${String(i * 1234567).padStart(7, '0')}`,
        ],
      );
    }
    // Expiry against the newest record time: the simulated network lies in the past.
    api = await startTestApi(t, { env: { API_CLOCK: 'ledger', LEDGER_AUTH_DISABLED: 'true' } });
    browser = await launchBrowser();
  }, 300_000);
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
  const rows = (page: Page, table: string) => page.locator(`table:has(caption:text-is("${table}")) tbody tr`);
  const columnTexts = (page: Page, table: string, column: number) => rows(page, table).locator(`td:nth-child(${column})`).allInnerTexts();
  const figureText = (page: Page, name: string) => page.locator(`[data-figure="${name}"]`).first().innerText();
  async function finish(page: Page, view: string, width: WidthName) {
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, view, width);
  }

  /** What a chart plots: its x (seconds since the epoch) and each series' values, from its attributes. */
  async function chartPoints(page: Page, section: string) {
    const figure = page.locator(`section:has(h2:text-is("${section}")) figure.chart-figure`);
    await figure.locator('.chart canvas').first().waitFor();
    const times = (await figure.locator('.chart').getAttribute('data-times'))!.split(',').map(Number);
    const items = figure.locator('.legend-item');
    const labels = await items.allTextContents();
    const values = await attributeOf(items, 'data-values');
    const series = labels.map((label, i) => [label, values[i]!.split(',').map(Number)] as const);
    return { times, series: Object.fromEntries(series) };
  }
  /** A table's cells by column, read whether or not its <details> is open. */
  const columnContents = (page: Page, table: string, column: number) =>
    rows(page, table).locator(`td:nth-child(${column})`).allTextContents();
  const epochSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

  /** Retries an assertion until it holds (the page re-renders after a click), or throws its last failure. */
  async function eventually(check: () => Promise<void>, timeoutMs = 15_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** The rows of a table of activities show exactly the API's page, in its order. */
  async function expectActivities(page: Page, table: string, answer: ActivityAnswer) {
    expect(await attributeOf(rows(page, table), 'data-event-id')).toEqual(answer.activities.map((a) => a.event_id));
    expect(await columnTexts(page, table, 1)).toEqual(answer.activities.map((a) => a.record_time));
    expect(await columnTexts(page, table, 2)).toEqual(answer.activities.map((a) => a.kind));
    expect(await columnTexts(page, table, 4)).toEqual(answer.activities.map((a) => grouped(a.amount)));
    expect(await columnTexts(page, table, 5)).toEqual(answer.activities.map((a) => grouped(a.fees)));
    expect(await columnTexts(page, table, 7)).toEqual(answer.activities.map((a) => (a.round === null ? '—' : String(a.round))));
  }

  it('has a dataset worth testing', async () => {
    const all = await get<ActivityAnswer>(activityPath('page_size=1000'));
    expect(all.activities.length).toBeGreaterThan(2 * PAGE);
    expect(new Set(all.activities.map((a) => a.kind)).size).toBeGreaterThan(2);
    expect(new Set(all.activities.map((a) => a.record_time.slice(0, 10))).size).toBeGreaterThan(1);
  });

  describe.each(WIDTHS)('at %s width', (width) => {
    it('party: the activity history newest first, paged by the API tokens, filtered by kind and days; the CSV of the range; the rewards', async () => {
      const page = await visit(width, `#/party/${encodeURIComponent(party)}`, (p) => rows(p, 'Activities').first().waitFor(), [
        // A party without an ANS name or a preapproval gets 404s for them, which Chromium logs.
        /status of 404/,
      ]);
      const first = await get<ActivityAnswer>(activityPath(`order=desc&page_size=${PAGE}`));
      expect(first.next_page_token).not.toBeNull();
      await expectActivities(page, 'Activities', first);
      const second = await get<ActivityAnswer>(
        activityPath(`order=desc&page_size=${PAGE}&page_token=${encodeURIComponent(first.next_page_token!)}`),
      );
      await page.getByRole('navigation', { name: 'Activities pages' }).getByRole('button', { name: 'Next page' }).click();
      await eventually(() => expectActivities(page, 'Activities', second));

      // The rewards: every reward kind, newest first.
      const rewards = await get<ActivityAnswer>(
        activityPath(`${REWARD_KINDS.map((k) => `kind=${k}`).join('&')}&order=desc&page_size=${PAGE}`),
      );
      expect(rewards.activities.length).toBe(PAGE);
      await expectActivities(page, 'Reward claims', rewards);

      // Transfers on the day of the newest one, and the day before.
      const transfer = first.activities.find((a) => a.kind === 'transfer') ?? second.activities.find((a) => a.kind === 'transfer');
      expect(transfer).toBeDefined();
      const last = transfer!.record_time.slice(0, 10);
      const firstDay = dayAfter(last, -1);
      const range = `kind=transfer&from=${firstDay}T00:00:00Z&to=${dayAfter(last)}T00:00:00Z`;
      const filtered = await get<ActivityAnswer>(activityPath(`${range}&order=desc&page_size=${PAGE}`));
      await page.getByLabel('Kind').selectOption('transfer');
      await page.locator('#history-first').fill(firstDay);
      await page.locator('#history-last').fill(last);
      await page.getByRole('button', { name: 'Apply' }).click();
      expect(filtered.activities.every((a) => a.kind === 'transfer')).toBe(true);
      await eventually(() => expectActivities(page, 'Activities', filtered));

      // The download is the CSV export of the same range, every row of it.
      const csv = await request(api.url, 'GET', activityPath(`${range}&order=desc`), undefined, { accept: 'text/csv' });
      expect(csv.status).toBe(200);
      expect(csv.text.split('\r\n').length - 2).toBeGreaterThan(0);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toBe(`activity-${party.slice(0, party.indexOf('::'))}.csv`);
      expect(fs.readFileSync(await download.path(), 'utf8')).toBe(csv.text);
      await finish(page, 'party-history', width);
    });

    it('network: daily mint and burn over the last 30 days of the ledger, then over a chosen range', async () => {
      const page = await visit(width, '#/network', (p) => rows(p, 'Mint and burn per day').first().waitFor());
      const newest = await newestDay();
      const expectDays = async (days: DayAnswer[]) => {
        const newestFirst = [...days].reverse();
        expect(await columnTexts(page, 'Mint and burn per day', 1)).toEqual(newestFirst.map((d) => d.day));
        expect(await columnTexts(page, 'Mint and burn per day', 2)).toEqual(newestFirst.map((d) => grouped(d.minted.total)));
        expect(await columnTexts(page, 'Mint and burn per day', 4)).toEqual(newestFirst.map((d) => grouped(d.minted.tap)));
        expect(await columnTexts(page, 'Mint and burn per day', 5)).toEqual(
          newestFirst.map((d) =>
            grouped(sum([d.minted.app_reward, d.minted.validator_reward, d.minted.sv_reward, d.minted.validator_faucet])),
          ),
        );
        expect(await columnTexts(page, 'Mint and burn per day', 6)).toEqual(newestFirst.map((d) => grouped(d.burned.total)));
        expect(await columnTexts(page, 'Mint and burn per day', 8)).toEqual(newestFirst.map((d) => grouped(d.burned.holding_fees)));
        expect(await columnTexts(page, 'Mint and burn per day', 10)).toEqual(newestFirst.map((d) => grouped(d.transfers)));
        expect(await columnTexts(page, 'Mint and burn per day', 11)).toEqual(newestFirst.map((d) => grouped(d.transfer_volume)));
        expect(await figureText(page, 'Minted in the range')).toBe(grouped(sum(days.map((d) => d.minted.total))));
        expect(await figureText(page, 'Burned in the range')).toBe(grouped(sum(days.map((d) => d.burned.total))));
        expect(await figureText(page, 'Transfers in the range')).toBe(grouped(days.reduce((n, d) => n + d.transfers, 0)));
      };
      const month = await get<{ days: DayAnswer[] }>(
        `/api/indexer/v0/network/daily-mint-burn?from=${dayAfter(newest, -29)}&to=${dayAfter(newest)}`,
      );
      expect(month.days.length).toBe(30);
      expect(month.days.filter((d) => d.transfers > 0).length).toBeGreaterThan(1);
      expect(month.days.some((d) => units(d.minted.validator_reward) > 0n)).toBe(true);
      await expectDays(month.days);
      expect(await page.locator('section:has(h2:text-is("Daily mint and burn")) .chart canvas').count()).toBeGreaterThan(0);

      // The network's last three days.
      const chosen = await get<{ days: DayAnswer[] }>(
        `/api/indexer/v0/network/daily-mint-burn?from=${dayAfter(newest, -2)}&to=${dayAfter(newest)}`,
      );
      await page.locator('#mint-burn-first').fill(dayAfter(newest, -2));
      await page.locator('section:has(h2:text-is("Daily mint and burn"))').getByRole('button', { name: 'Show', exact: true }).click();
      await eventually(() => expectDays(chosen.days));
      await finish(page, 'network-mint-burn', width);
    });

    it("party: the unlocked and locked balance at each day's end, charted, over the last 30 days of the ledger and a chosen range", async () => {
      const page = await visit(width, `#/party/${encodeURIComponent(party)}`, (p) => rows(p, 'Activities').first().waitFor(), [
        /status of 404/,
      ]);
      const newest = await newestDay();
      const daily = (first: string, last: string) =>
        get<{ party: string; days: BalanceDay[] }>(
          `/api/indexer/v0/parties/${encodeURIComponent(party)}/balances/daily?from=${first}&to=${dayAfter(last)}`,
        );
      const expectBalances = async (days: BalanceDay[]) => {
        const chart = await chartPoints(page, 'Balance per day');
        expect(chart.times).toEqual(days.map((d) => epochSeconds(d.day)));
        expect(chart.series).toEqual({
          Unlocked: days.map((d) => Number(d.total_unlocked_coin)),
          Locked: days.map((d) => Number(d.total_locked_coin)),
        });
        const newestFirst = [...days].reverse();
        const table = "Balance at each day's end";
        expect(await columnContents(page, table, 1)).toEqual(newestFirst.map((d) => d.day));
        expect(await columnContents(page, table, 2)).toEqual(newestFirst.map((d) => grouped(d.total_unlocked_coin)));
        expect(await columnContents(page, table, 3)).toEqual(newestFirst.map((d) => grouped(d.total_locked_coin)));
        expect(await columnContents(page, table, 4)).toEqual(newestFirst.map((d) => grouped(d.accumulated_holding_fees_total)));
        expect(await columnContents(page, table, 5)).toEqual(newestFirst.map((d) => grouped(d.total_available_coin)));
        expect(await columnContents(page, table, 6)).toEqual(newestFirst.map((d) => String(d.holdings)));
      };
      const month = await daily(dayAfter(newest, -29), newest);
      expect(month.days.length).toBe(30);
      // The party's balance moves over the network's days: a chart worth drawing.
      expect(new Set(month.days.map((d) => d.total_unlocked_coin)).size).toBeGreaterThan(2);
      await eventually(() => expectBalances(month.days));

      const chosen = await daily(dayAfter(newest, -2), newest);
      await page.locator('#balance-first').fill(dayAfter(newest, -2));
      await page.getByRole('button', { name: 'Show balances', exact: true }).click();
      await eventually(() => expectBalances(chosen.days));
      await rows(page, 'Reward claims').first().waitFor();
      await finish(page, 'party', width);
    });

    it("network: the supply at each day's end, charted, over the last 30 days of the ledger and a chosen range", async () => {
      const page = await visit(width, '#/network', (p) => rows(p, 'Mint and burn per day').first().waitFor());
      const newest = await newestDay();
      const supply = async (first: string, last: string) => {
        const out: (SupplyAnswer & { day: string })[] = [];
        for (let day = first; day <= last; day = dayAfter(day))
          out.push({ ...(await get<SupplyAnswer>(`/api/indexer/v0/network/supply?at=${day}T23:59:59.999999Z`)), day });
        return out;
      };
      const expectSupply = async (days: (SupplyAnswer & { day: string })[]) => {
        const chart = await chartPoints(page, 'Supply per day');
        expect(chart.times).toEqual(days.map((d) => epochSeconds(d.day)));
        expect(chart.series).toEqual({
          'Unlocked amulet': days.map((d) => Number(d.unlocked)),
          'Locked amulet': days.map((d) => Number(d.locked)),
        });
        const newestFirst = [...days].reverse();
        const table = "Supply at each day's end";
        expect(await columnContents(page, table, 1)).toEqual(newestFirst.map((d) => d.day));
        expect(await columnContents(page, table, 2)).toEqual(newestFirst.map((d) => grouped(d.unlocked)));
        expect(await columnContents(page, table, 3)).toEqual(newestFirst.map((d) => grouped(d.locked)));
        expect(await columnContents(page, table, 4)).toEqual(newestFirst.map((d) => grouped(d.total)));
        expect(await columnContents(page, table, 5)).toEqual(newestFirst.map((d) => d.snapshot ?? '—'));
      };
      const month = await supply(dayAfter(newest, -29), newest);
      expect(month.length).toBe(30);
      expect(new Set(month.map((d) => d.total)).size).toBeGreaterThan(2);
      await eventually(() => expectSupply(month));

      const chosen = await supply(dayAfter(newest, -1), newest);
      await page.locator('#supply-first').fill(dayAfter(newest, -1));
      await page.getByRole('button', { name: 'Show supply', exact: true }).click();
      await eventually(() => expectSupply(chosen));
      await page.locator('section:has(h2:text-is("Daily mint and burn")) .chart canvas').first().waitFor();
      await finish(page, 'network', width);
    });

    it('validators: the reward leaderboard over the last 30 days of the ledger, then another reward and window', async () => {
      const page = await visit(width, '#/validators', (p) => rows(p, 'Leaderboard').first().waitFor());
      const newest = await newestDay();
      const expectBoard = async (board: LeaderboardAnswer) => {
        expect(board.leaders.length).toBeGreaterThan(1);
        expect(await attributeOf(rows(page, 'Leaderboard').locator('td:nth-child(2) a'), 'title')).toEqual(
          board.leaders.map((l) => l.party),
        );
        expect(await columnTexts(page, 'Leaderboard', 1)).toEqual(board.leaders.map((l) => String(l.rank)));
        expect(await columnTexts(page, 'Leaderboard', 3)).toEqual(board.leaders.map((l) => grouped(l.amount)));
        expect(await columnTexts(page, 'Leaderboard', 4)).toEqual(board.leaders.map((l) => grouped(l.claims)));
        expect(await figureText(page, 'Claimed by them')).toBe(grouped(sum(board.leaders.map((l) => l.amount))));
      };
      const leaderboard = (reward: string, first: string, last: string) =>
        get<LeaderboardAnswer>(
          `/api/indexer/v0/leaderboards/rewards?reward=${reward}&from=${first}T00:00:00Z&to=${dayAfter(last)}T00:00:00Z&limit=20`,
        );
      const validators = await leaderboard('validator', dayAfter(newest, -29), newest);
      await expectBoard(validators);
      await page.getByRole('heading', { name: `Validator rewards, ${validators.from} to ${validators.to}` }).waitFor();

      const app = await leaderboard('app', dayAfter(newest, -1), newest);
      await page.getByLabel('Reward').selectOption('app');
      await page.locator('#leaders-first').fill(dayAfter(newest, -1));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.getByRole('heading', { name: `App rewards, ${app.from} to ${app.to}` }).waitFor();
      await expectBoard(app);
      await finish(page, 'validators', width);
    });
  });

  it('a range the API refuses reads as its message', async () => {
    const page = await visit('desktop', '#/validators', (p) => rows(p, 'Leaderboard').first().waitFor(), [/status of 400/]);
    const newest = await newestDay();
    const refused = await request(
      api.url,
      'GET',
      `/api/indexer/v0/leaderboards/rewards?reward=validator&from=${dayAfter(newest, -199)}T00:00:00Z&to=${dayAfter(newest)}T00:00:00Z&limit=20`,
    );
    expect(refused.status).toBe(400);
    await page.locator('#leaders-first').fill(dayAfter(newest, -199));
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain(`Could not load the leaderboard. ${(refused.json as { error: string }).error}`);
  });
});
