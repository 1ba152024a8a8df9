/**
 * What the live-stream tests over SSE and WebSocket share: the stream's path, the cursor before every
 * event, the /v0/events pages they are compared with, and small waits on the service's state.
 */
import { request, type TestApi } from './http/http';

/** Every event: strictly after the first migration's import updates. */
export const FROM_THE_START = '0/0001-01-01T00:00:00.000000Z';
export const STREAM = '/api/indexer/v0/stream/events';

/** The events of /v0/events from the start (or after `from`), page by page: each page's body and its items. */
export async function eventPages(
  api: TestApi,
  encoding = 'compact_json',
  from?: { after_migration_id: number; after_record_time: string },
): Promise<{ texts: string[]; items: unknown[] }> {
  const texts: string[] = [];
  const items: unknown[] = [];
  let after = from;
  for (;;) {
    const res = await request(api.url, 'POST', '/api/scan/v0/events', { page_size: 1000, after, daml_value_encoding: encoding });
    expect(res.status).toBe(200);
    const page = (
      res.json as {
        events: {
          update: { migration_id: number; record_time: string } | null;
          verdict: { migration_id: number; record_time: string } | null;
        }[];
      }
    ).events;
    if (page.length === 0) return { texts, items };
    texts.push(res.text);
    items.push(...page);
    const last = page[page.length - 1]!;
    const key = last.update ?? last.verdict!;
    after = { after_migration_id: key.migration_id, after_record_time: key.record_time };
  }
}

/** The bytes of /v0/events pages made of the stream's item texts, in the stream's order. */
export function asPages(data: string[], pageSizes: number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const n of pageSizes) {
    out.push(`{"events":[${data.slice(at, at + n).join(',')}]}`);
    at += n;
  }
  return out;
}

export type Item = { update: Record<string, unknown> | null };
export const kindOf = (item: Item) =>
  item.update === null ? 'verdict-only' : 'events_by_id' in item.update ? 'transaction' : 'reassignment';

export async function metricValue(api: TestApi, name: string): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** Polls `condition` every 100 ms until it holds, or throws after `timeoutMs`. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The item texts of a /v0/events page, as the list wrote them. */
export function splitItems(page: string): string[] {
  const events = (JSON.parse(page) as { events: unknown[] }).events;
  // The list writes items without spaces between them; re-serialising would change their bytes, so cut the text.
  const out: string[] = [];
  let at = page.indexOf('[') + 1;
  for (let i = 0; i < events.length; i++) {
    let depth = 0;
    let inString = false;
    let j = at;
    for (; j < page.length; j++) {
      const c = page[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    out.push(page.slice(at, j + 1));
    at = j + 2;
  }
  return out;
}
