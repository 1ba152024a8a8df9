/**
 * The activity view while the live simulator runs: `scan-indexer start` (API and worker in one
 * process, as `npm start` runs them) on a test database, and the page's list of latest updates
 * moving on by itself as new updates are ingested.
 */
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { spawnCli } from '../../bench/support/cli-child';
import { attributeOf, launchBrowser, openPage, screenshot } from '../support/browser/browser';
import { useTestDatabase } from '../support/database/database';
import { request } from '../support/http/http';

function bannerUrl(child: ChildProcess, timeoutMs: number): Promise<{ url: string; firstLine: string }> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no banner within ${timeoutMs} ms; output:\n${seen}`)), timeoutMs);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = /scan-indexer is serving at (http:\/\/\S+)\n(.*)\n/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, firstLine: m[2]! });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

describe('web UI during live ingestion', () => {
  const t = useTestDatabase();
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  /** The service the first test started, for the others. */
  let served = '';

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.on('exit', r));
      child.kill('SIGINT');
      await exited;
    }
  });

  it('the latest updates refresh by themselves as the simulator ingests', async () => {
    child = spawnCli(['start'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: t.url,
        PORT: '0',
        LOG_LEVEL: 'warn',
        LEDGER_AUTH_DISABLED: 'true',
        SIMULATOR_MODE: 'live',
        SIMULATOR_RATE: '2',
        INGEST_BATCH_MAX_WAIT_MS: '100',
      },
    });
    const { url, firstLine } = await bannerUrl(child, 30_000);
    served = url;
    expect(firstLine).toBe(`  Web UI           ${url}/`);

    // The banner comes before the worker's first batch: until then the network has no update, and the
    // page's question for the migration's ranges is a 404 that the browser reports as a console error.
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      if ((await request(url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 0 })).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    browser = await launchBrowser();
    const { page, problems } = await openPage(browser, 'desktop');
    await page.goto(`${url}/#/activity`);
    const newest = () => page.locator('li.update').first().getAttribute('data-update-id');
    await page.locator('li.update').first().waitFor({ timeout: 30_000 });
    const before = await newest();
    const countBefore = await page.locator('li.update').count();

    // No reload, no click: the list moves on by itself.
    // Polled from here: the page's CSP forbids evaluating strings in it.
    let after = before;
    for (const deadline = Date.now() + 30_000; after === before && Date.now() < deadline;) {
      await page.waitForTimeout(250);
      after = await newest();
    }
    expect(after).not.toBe(before);
    // What the page shows is what the API has.
    const event = await request(url, 'GET', `/api/scan/v0/events/${after!}`);
    expect(event.status).toBe(200);
    const ids = await attributeOf(page.locator('li.update'), 'data-update-id');
    expect(ids).toContain(before);
    expect(ids.length).toBeGreaterThanOrEqual(Math.min(20, countBefore));
    expect(await page.locator('.live-state').innerText()).toMatch(/^Live: newest update at /);
    await screenshot(page, 'activity-live', 'desktop');
    expect(problems).toEqual([]);
  });

  /** The requests a page makes, as "METHOD /path", from now on. */
  function requestsOf(page: Page): string[] {
    const seen: string[] = [];
    page.on('request', (r) => seen.push(`${r.method()} ${new URL(r.url()).pathname}`));
    return seen;
  }

  /** Waits until the newest update shown is another than `before`; its id. */
  async function nextNewest(page: Page, before: string | null): Promise<string | null> {
    let after = before;
    for (const deadline = Date.now() + 30_000; after === before && Date.now() < deadline;) {
      await page.waitForTimeout(250);
      after = await page.locator('li.update').first().getAttribute('data-update-id');
    }
    return after;
  }

  const STREAM = 'GET /api/indexer/v0/stream/events';
  const POLL = 'POST /api/scan/v0/backfilling/updates-before';

  it('the latest updates come from the live stream of events, without polling', async () => {
    const { page, problems } = await openPage(browser!, 'desktop');
    const requests = requestsOf(page);
    await page.goto(`${served}/#/activity`);
    await page.locator('li.update').first().waitFor({ timeout: 30_000 });
    for (const deadline = Date.now() + 10_000; !requests.includes(STREAM) && Date.now() < deadline;) await page.waitForTimeout(100);
    expect(requests).toContain(STREAM);
    const polls = requests.filter((r) => r === POLL).length;
    const before = await page.locator('li.update').first().getAttribute('data-update-id');

    const after = await nextNewest(page, before);
    expect(after).not.toBe(before);
    // No question for the latest updates since the first page: the new one came by the stream.
    expect(requests.filter((r) => r === POLL).length).toBe(polls);
    expect(await page.locator('.controls label').first().innerText()).toContain('live stream');
    expect((await request(served, 'GET', `/api/scan/v0/events/${after!}`)).status).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('falls back to polling every 4 s when the stream is refused', async () => {
    const { page } = await openPage(browser!, 'desktop');
    const requests = requestsOf(page);
    await page.route('**/api/indexer/v0/stream/events*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"Too many live streams"}' }),
    );
    await page.goto(`${served}/#/activity`);
    await page.locator('li.update').first().waitFor({ timeout: 30_000 });
    await page.getByText('polling every 4 s').waitFor({ timeout: 10_000 });
    const polls = requests.filter((r) => r === POLL).length;
    const before = await page.locator('li.update').first().getAttribute('data-update-id');
    const after = await nextNewest(page, before);
    expect(after).not.toBe(before);
    expect(requests.filter((r) => r === POLL).length).toBeGreaterThan(polls);
    await page.close();
  });
});
