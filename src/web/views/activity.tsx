/**
 * Activity: the latest updates (kept current while the page is open: from the live stream of events,
 * or by polling every 4 s when the stream is unavailable), each expandable into its
 * event tree with verdict and traffic; lookup by update id or external transaction hash; updates
 * per hour.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, type EventItem, type HistoryUpdate, type TreeEvent } from '../api';
import { TimeChart } from '../chart';
import { afterRefresh, newestFirst } from '../update-list';
import { ErrorMessage, Figures, Id, Party, SearchForm, Section, Show, Table, useLoad } from '../components';
import { count, microAfter, templateName } from '../format';

const PAGE = 20;
const REFRESH_MS = 4000;
/** After falling back to polling, how long before the stream is tried again. */
const STREAM_RETRY_MS = 60_000;
/** Errors in a row, without a message between them, after which the stream is given up for polling. */
const STREAM_FAILURES = 3;
/** Exclusive upper bound for the newest page: later than any record time. */
const FAR_FUTURE = '9999-12-31T23:59:59.999999Z';

/**
 * The `count` newest updates of the newest migration before `before` (and at or after `atOrAfter`,
 * when given), over all its synchronizers: updates-before is per synchronizer (newest first), so the
 * newest `count` of each, merged, hold the newest `count` overall. A synchronizer with nothing at or
 * after `atOrAfter` is not asked.
 */
async function latestUpdates(before: string, countWanted: number, atOrAfter?: string): Promise<HistoryUpdate[]> {
  const { migration_id } = await api.lastMigration();
  const info = await api.migrationInfo(migration_id);
  const pages = await Promise.all(
    info.record_time_range
      .filter((r) => atOrAfter === undefined || Date.parse(r.max) >= Date.parse(atOrAfter) - 1)
      .map((r) => api.updatesBefore(migration_id, r.synchronizer_id, before, countWanted, atOrAfter)),
  );
  return newestFirst(pages.flatMap((p) => p.transactions)).slice(0, countWanted);
}

export function ActivityView({ lookup }: { lookup: string | undefined }) {
  return (
    <>
      <h1>Activity</h1>
      <LookupSection lookup={lookup} />
      <LatestSection />
      <PerHourSection />
    </>
  );
}

function LookupSection({ lookup }: { lookup: string | undefined }) {
  const found = useLoad(() => (lookup ? findUpdate(lookup) : Promise.resolve(undefined)), [lookup]);
  return (
    <Section title="Find an update">
      <SearchForm view="activity" id="lookup" label="Update id or external transaction hash" button="Find" value={lookup} />
      {lookup && (
        <Show loaded={found} what={`the update ${lookup}`}>
          {(item) => (item ? <UpdateDetail item={item} /> : null)}
        </Show>
      )}
    </Section>
  );
}

/** By update id first; an id that is no update's is tried as an external transaction hash. */
async function findUpdate(idOrHash: string): Promise<EventItem> {
  try {
    return await api.event(idOrHash);
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 400)) throw err;
    try {
      const update = await api.updateByHash(idOrHash);
      return await api.event(update.update_id);
    } catch (byHash) {
      if (byHash instanceof ApiError && (byHash.status === 404 || byHash.status === 400))
        throw new ApiError(404, `No update has the id or external transaction hash ${idOrHash}.`, err.request);
      throw byHash;
    }
  }
}

/** The stream's cursor for an update: migration, record time and update id. */
function cursorOf(u: HistoryUpdate): string | undefined {
  return u.migration_id === undefined || u.migration_id === null ? undefined : `${u.migration_id}/${u.record_time}/${u.update_id}`;
}

/**
 * While `on`, the updates of the live stream of events (EventSource), from after `from()` on, go to
 * `add`; `onFailure` is called once when the stream cannot be had (not offered, refused, or failing
 * again and again), and the stream is closed. EventSource itself reconnects, with the last id, after
 * the server ends a stream (shutdown, a slow consumer).
 */
function useEventStream(on: boolean, from: () => HistoryUpdate | undefined, add: (u: HistoryUpdate[]) => void, onFailure: () => void) {
  const callbacks = useRef({ from, add, onFailure });
  callbacks.current = { from, add, onFailure };
  useEffect(() => {
    if (!on) return undefined;
    if (typeof EventSource === 'undefined') {
      callbacks.current.onFailure();
      return undefined;
    }
    const newest = callbacks.current.from();
    const cursor = newest && cursorOf(newest);
    const source = new EventSource(`/api/indexer/v0/stream/events${cursor ? `?after=${encodeURIComponent(cursor)}` : ''}`);
    let failures = 0;
    source.onmessage = (e: MessageEvent<string>) => {
      failures = 0;
      const item = JSON.parse(e.data) as EventItem;
      if (item.update) callbacks.current.add([item.update]);
    };
    source.addEventListener('heartbeat', () => (failures = 0));
    source.onerror = () => {
      failures += 1;
      // CLOSED: the server refused the stream (an HTTP error); EventSource does not try again.
      if (source.readyState === EventSource.CLOSED || failures >= STREAM_FAILURES) {
        source.close();
        callbacks.current.onFailure();
      }
    };
    return () => source.close();
  }, [on]);
}

function LatestSection() {
  const [live, setLive] = useState(true);
  // How the list is kept current while live: the stream, or polling when the stream is unavailable.
  const [mode, setMode] = useState<'stream' | 'polling'>('stream');
  // What is shown: the newest page, the older pages asked for, and what each refresh brought in front.
  const [list, setList] = useState<HistoryUpdate[]>([]);
  // A refresh asks only for what is at or after the newest update shown (that one included, to tell a gap).
  const newestShown = useRef<string | undefined>(undefined);
  newestShown.current = list[0]?.record_time;
  const polling = live && mode === 'polling';
  const latest = useLoad(() => latestUpdates(FAR_FUTURE, PAGE, newestShown.current), [], polling ? REFRESH_MS : undefined);
  // The stream starts once the first page is shown, after its newest update.
  useEventStream(
    live && mode === 'stream' && latest.data !== undefined,
    () => list[0] ?? latest.data?.[0],
    (fresh) => setList((current) => newestFirst([...fresh, ...current]).slice(0, Math.max(current.length, PAGE))),
    () => setMode('polling'),
  );
  // Polling, the stream is tried again after a while.
  useEffect(() => {
    if (!polling) return undefined;
    const timer = setTimeout(() => setMode('stream'), STREAM_RETRY_MS);
    return () => clearTimeout(timer);
  }, [polling]);
  const [older, setOlder] = useState<{ error?: unknown; exhausted?: boolean }>({});
  useEffect(() => {
    const page = latest.data;
    if (!page) return;
    setList((current) => afterRefresh(current, page, PAGE));
  }, [latest.data]);
  const shown = list.length > 0 ? list : (latest.data ?? []);
  const loadOlder = () => {
    const oldest = shown.at(-1);
    if (!oldest) return;
    // One microsecond past the oldest shown, so that updates at the same time on another synchronizer are not skipped.
    latestUpdates(microAfter(oldest.record_time), PAGE + 1)
      .then((page) => {
        const fresh = page.filter((u) => !shown.some((s) => s.update_id === u.update_id));
        setList((current) => newestFirst([...current, ...fresh]));
        setOlder({ exhausted: fresh.length === 0 });
      })
      .catch((error: unknown) => setOlder({ error }));
  };
  return (
    <Section title="Latest updates">
      <p class="controls">
        <label>
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Keep up to date (
          {mode === 'stream' ? 'live stream' : `polling every ${REFRESH_MS / 1000} s`})
        </label>
        <span class="live-state" aria-live="polite">
          {live ? 'Live' : 'Paused'}
          {shown[0] && `: newest update at ${shown[0].record_time}`}
        </span>
      </p>
      <Show loaded={latest} what="the latest updates">
        {() =>
          shown.length === 0 ? (
            <p>No update has been ingested yet.</p>
          ) : (
            <ol class="updates" aria-label="Latest updates, newest first">
              {shown.map((u) => (
                <UpdateRow key={u.update_id} update={u} />
              ))}
            </ol>
          )
        }
      </Show>
      {older.error !== undefined && <ErrorMessage error={older.error} what="older updates" />}
      {shown.length > 0 && !older.exhausted && (
        <button type="button" onClick={loadOlder}>
          Show older updates
        </button>
      )}
    </Section>
  );
}

/** What an update did, in a few words: the root choices or the reassignment. */
function summary(u: HistoryUpdate): string {
  if (u.event) return u.event.source_synchronizer ? 'reassignment (unassign)' : 'reassignment';
  const roots = (u.root_event_ids ?? []).map((id) => u.events_by_id?.[id]).filter((e): e is TreeEvent => e !== undefined);
  const words = roots.map((e) => (e.event_type === 'exercised_event' ? (e.choice ?? 'exercise') : `create ${templateName(e.template_id)}`));
  return words.join(', ') || 'transaction';
}

function UpdateRow({ update }: { update: HistoryUpdate }) {
  const [open, setOpen] = useState(false);
  const detailId = `detail-${update.update_id}`;
  const events = update.events_by_id ? Object.keys(update.events_by_id).length : 1;
  return (
    <li class="update" data-update-id={update.update_id}>
      <button type="button" class="update-toggle" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen(!open)}>
        <span class="update-time">{update.record_time}</span>
        <span class="update-summary">{summary(update)}</span>
        <span class="update-events">
          {events} event{events === 1 ? '' : 's'}
        </span>
        <span class="visually-hidden">{open ? 'Hide' : 'Show'} details of update</span>
        <code class="id">{update.update_id.slice(0, 14)}…</code>
      </button>
      {open && (
        <div id={detailId} class="update-detail">
          <EventDetail updateId={update.update_id} />
        </div>
      )}
    </li>
  );
}

function EventDetail({ updateId }: { updateId: string }) {
  const item = useLoad(() => api.event(updateId), [updateId]);
  return (
    <Show loaded={item} what={`update ${updateId}`}>
      {(e) => <UpdateDetail item={e} />}
    </Show>
  );
}

/** An update with its event tree, verdict and traffic, as /v0/events serves them. */
function UpdateDetail({ item }: { item: EventItem }) {
  const u = item.update;
  return (
    <article class="update-card" aria-label={`Update ${u?.update_id ?? item.verdict?.finalization_time ?? ''}`}>
      {u && (
        <Figures
          label="Update"
          items={[
            ['Update id', <code class="id wrap">{u.update_id}</code>],
            ['Record time', u.record_time],
            ['Migration', u.migration_id ?? '—'],
            ['Synchronizer', u.synchronizer_id ? <Id value={u.synchronizer_id} keep={16} /> : '—'],
            ...(u.external_transaction_hash
              ? [['External transaction hash', <code class="id wrap">{u.external_transaction_hash}</code>] satisfies [string, unknown]]
              : []),
          ]}
        />
      )}
      {u?.events_by_id && (
        <>
          <h3>Event tree</h3>
          <EventTree update={u} ids={u.root_event_ids ?? []} />
        </>
      )}
      {u?.event && (
        <>
          <h3>Reassignment</h3>
          <Figures
            items={[
              ['Contract', u.event.contract_id ? <Id value={u.event.contract_id} /> : '—'],
              ['From', u.event.source_synchronizer ? <Id value={u.event.source_synchronizer} keep={16} /> : '—'],
              ['To', u.event.target_synchronizer ? <Id value={u.event.target_synchronizer} keep={16} /> : '—'],
              ['Submitter', u.event.submitter ? <Party id={u.event.submitter} /> : '—'],
            ]}
          />
        </>
      )}
      <h3>Verdict</h3>
      {item.verdict ? (
        <Figures
          label="Verdict"
          items={[
            ['Result', item.verdict.verdict_result],
            ['Finalized at', item.verdict.finalization_time],
            ['Submitting parties', item.verdict.submitting_parties.map((p) => <Party key={p} id={p} />)],
            ['Submitting participant', <Id value={item.verdict.submitting_participant_uid} keep={16} />],
            ['Mediator group', item.verdict.mediator_group],
            ['Views', item.verdict.transaction_views.views.length],
          ]}
        />
      ) : (
        <p>No verdict (a reassignment, or an update the mediator's verdicts do not cover).</p>
      )}
      <h3>Traffic</h3>
      {item.traffic_summary ? (
        <Figures
          label="Traffic"
          items={[
            ['Total traffic cost (bytes)', count(item.traffic_summary.total_traffic_cost)],
            ['Envelopes', item.traffic_summary.envelope_traffic_summaries.length],
          ]}
        />
      ) : (
        <p>No traffic summary.</p>
      )}
    </article>
  );
}

function EventTree({ update, ids }: { update: HistoryUpdate; ids: string[] }) {
  return (
    <ul class="event-tree">
      {ids.map((id) => {
        const e = update.events_by_id?.[id];
        if (!e) return null;
        return (
          <li key={id}>
            <span class={`event-kind ${e.event_type}`}>
              {e.event_type === 'created_event'
                ? 'created'
                : e.event_type === 'archived_event'
                  ? 'archived'
                  : e.consuming
                    ? 'exercised (consuming)'
                    : 'exercised'}
            </span>{' '}
            {e.choice && <strong>{e.choice}</strong>} {e.choice ? 'on ' : ''}
            <span class="template">{templateName(e.template_id)}</span> <Id value={e.contract_id} keep={8} />
            {e.child_event_ids && e.child_event_ids.length > 0 && <EventTree update={update} ids={e.child_event_ids} />}
          </li>
        );
      })}
    </ul>
  );
}

const WINDOWS = [
  { hours: 24, label: 'last 24 hours' },
  { hours: 72, label: 'last 3 days' },
  { hours: 168, label: 'last 7 days' },
];

function PerHourSection() {
  const [hours, setHours] = useState(24);
  // Kept open across a change of window, which reloads the section.
  const [figuresOpen, setFiguresOpen] = useState(false);
  const perHour = useLoad(() => api.updatesPerHour(hours), [hours], 60_000);
  const chart = useMemo(() => {
    const buckets = perHour.data?.buckets ?? [];
    return {
      times: buckets.map((b) => Date.parse(b.hour) / 1000),
      series: [{ label: 'Updates per hour', values: buckets.map((b) => b.updates), color: '#047857' }],
    };
  }, [perHour.data]);
  return (
    <Section title="Updates per hour">
      <p class="controls">
        <label for="per-hour-window">Window</label>
        <select id="per-hour-window" value={String(hours)} onChange={(e) => setHours(Number(e.currentTarget.value))}>
          {WINDOWS.map((w) => (
            <option key={w.hours} value={String(w.hours)}>
              {w.label}
            </option>
          ))}
        </select>
      </p>
      <Show loaded={perHour} what="the updates per hour">
        {(p) =>
          p.buckets.length === 0 ? (
            <p>No update has been ingested yet.</p>
          ) : (
            <>
              <p>
                The {hours} hours of ledger time up to the newest update of migration {p.migration_id}.
              </p>
              <TimeChart label="Updates per hour" times={chart.times} series={chart.series} bars />
              <details open={figuresOpen} onToggle={(e) => setFiguresOpen(e.currentTarget.open)}>
                <summary>Figures per hour</summary>
                <Table label="Updates per hour" head={['Hour (UTC)', 'Updates']}>
                  {p.buckets.map((b) => (
                    <tr key={b.hour}>
                      <td>{b.hour}</td>
                      <td>{count(b.updates)}</td>
                    </tr>
                  ))}
                </Table>
              </details>
            </>
          )
        }
      </Show>
    </Section>
  );
}
