/**
 * A mirror (SOURCE=scan) asks its upstream Scans for what the indexer cannot know from the updates it
 * ingests (sequencer traffic state, topology mappings, an SV node's own configuration), and answers as
 * they do: the upstream's status and body bytes, after checking the body against the operation's
 * response schema (a 2xx) or Scan's ErrorResponse (a 4xx). A 5xx (a 501 of an upstream that is itself
 * an indexer included), a refused connection, a timeout or a body that fails the check is no answer.
 *
 * - Threshold 1 (no attestation): the upstreams in turn, the first answer wins.
 * - Threshold k > 1: every upstream at once; the answer is the one `k` of them give byte for byte
 *   (status and body). Upstreams that answer but disagree: 502 naming each answer; too few answers
 *   to reach `k`: 503 naming each failure.
 */
import type { z } from 'zod';
import { isScanMirror, scanSourceThreshold, type Config } from '../../internal/config';
import { ErrorResponse } from '../schema-kit';

/** What the mirror answers: the agreed upstream answer, or its own 502/503. */
interface UpstreamAnswer {
  status: number;
  /** The body bytes to send (JSON). */
  text: string;
}

export interface UpstreamAnswers {
  /** `path` below /api/scan, with its query; `body` checks a 2xx answer. */
  ask(path: string, body: z.ZodType): Promise<UpstreamAnswer>;
}

type Outcome = { ok: true; upstream: string; status: number; text: string } | { ok: false; upstream: string; reason: string };

/** How much of a body a message quotes. */
const QUOTED = 200;
const quote = (text: string) => (text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text);

async function askOne(base: string, path: string, body: z.ZodType, timeoutMs: number): Promise<Outcome> {
  const upstream = base.replace(/\/+$/, '');
  let status: number;
  let text: string;
  try {
    const res = await fetch(`${upstream}/api/scan${path}`, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const e = err as Error;
    return { ok: false, upstream, reason: e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `unreachable (${e.message})` };
  }
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) {
    return { ok: false, upstream, reason: `answered ${status} ${quote(text)}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, upstream, reason: `answered ${status} with a body that is no JSON: ${quote(text)}` };
  }
  const check = (status < 300 ? body : ErrorResponse).safeParse(parsed);
  if (!check.success) {
    const issue = check.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return {
      ok: false,
      upstream,
      reason: `answered ${status} with a body not of the operation's shape (${issue?.message ?? 'invalid'}${where})`,
    };
  }
  return { ok: true, upstream, status, text };
}

const errorBody = (status: number, error: string): UpstreamAnswer => ({ status, text: JSON.stringify({ error }) });

const failures = (outcomes: Outcome[]) => outcomes.flatMap((o) => (o.ok ? [] : [`${o.upstream} ${o.reason}`])).join('; ');

/** The upstream answers of a mirror, or undefined when this indexer is no mirror (the operations then answer 501). */
export function upstreamAnswersOf(config: Pick<Config, 'source' | 'scanSource'>): UpstreamAnswers | undefined {
  if (!isScanMirror(config) || config.scanSource.urls.length === 0) return undefined;
  const urls = config.scanSource.urls;
  const threshold = scanSourceThreshold(config);
  const timeoutMs = config.scanSource.answerTimeoutMs;
  return {
    async ask(path, body) {
      if (threshold <= 1) {
        const tried: Outcome[] = [];
        for (const url of urls) {
          const outcome = await askOne(url, path, body, timeoutMs);
          if (outcome.ok) return { status: outcome.status, text: outcome.text };
          tried.push(outcome);
        }
        return errorBody(503, `No upstream Scan answered GET ${path}: ${failures(tried)}`);
      }
      const outcomes = await Promise.all(urls.map((url) => askOne(url, path, body, timeoutMs)));
      const groups = new Map<string, { status: number; text: string; upstreams: string[] }>();
      for (const o of outcomes) {
        if (!o.ok) continue;
        const key = `${o.status} ${o.text}`;
        const group = groups.get(key) ?? { status: o.status, text: o.text, upstreams: [] };
        group.upstreams.push(o.upstream);
        groups.set(key, group);
      }
      const agreed = [...groups.values()].find((g) => g.upstreams.length >= threshold);
      if (agreed) return { status: agreed.status, text: agreed.text };
      const answered = outcomes.filter((o) => o.ok).length;
      const need = `${threshold} of the ${urls.length} upstream Scans must answer GET ${path} identically`;
      const failed = failures(outcomes);
      if (answered < threshold) {
        return errorBody(503, `${need}, but only ${answered} answered${failed ? `: ${failed}` : ''}`);
      }
      const answers = [...groups.values()].map((g) => `${g.upstreams.join(', ')} answered ${g.status} ${quote(g.text)}`).join('; ');
      return errorBody(502, `${need}, but they disagree: ${answers}${failed ? `; ${failed}` : ''}`);
    },
  };
}
