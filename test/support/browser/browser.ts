/**
 * Headless Chromium for the web UI's end-to-end tests, driven by playwright-core. The browser is
 * Debian's `chromium` package (no browser download is possible here); `.ci/run` installs it when it
 * is missing. A test that cannot find it fails, naming what to install: it never skips.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { projectRoot } from '../../../src/internal/paths';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function chromiumPath(): string {
  const found = CANDIDATES.find((p): p is string => p !== undefined && p !== '' && fs.existsSync(p));
  if (!found) throw new Error('No Chromium found: install Debian\'s "chromium" package (apt-get install chromium), or set CHROMIUM_PATH.');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    // As root (CI), Chromium needs --no-sandbox; the rest keeps it from calling out of this closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
export type WidthName = keyof typeof WIDTHS;

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions seen so far (a CSP violation is a console error). */
  problems: string[];
}

export async function openPage(browser: Browser, width: WidthName): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: WIDTHS[width], timezoneId: 'UTC', locale: 'en-GB' });
  const problems: string[] = [];
  page.on('console', (m) => {
    // With the resource's address, when the message is about one (a failed load names no URL itself).
    if (m.type() === 'error') problems.push(`console: ${m.text()}${m.location().url ? ` (${m.location().url})` : ''}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { page, problems };
}

/** Where the screenshots go: test artifacts, kept out of git. */
const SCREENSHOT_DIR = path.join(projectRoot, 'test-artifacts', 'screenshots');

export async function screenshot(page: Page, name: string, width: WidthName): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.x A and AA rules on the page as it is; the serious and critical violations,
 * one line each. axe is evaluated through the DevTools protocol, so the page's CSP stays as served.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const options = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } };
  // A string is evaluated in the page, where axe and document exist (this file is compiled without the DOM's types).
  const result = await page.evaluate<AxeResult>(`axe.run(document, ${JSON.stringify(options)})`);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** One attribute of every element a locator finds, in document order. */
export function attributeOf(locator: Locator, name: string): Promise<(string | null)[]> {
  // Typed by hand: this file is compiled without the DOM's types.
  return locator.evaluateAll(
    (elements: { getAttribute(n: string): string | null }[], n: string) => elements.map((e) => e.getAttribute(n)),
    name,
  );
}
