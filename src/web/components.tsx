/** Pieces every view uses: loading data, showing errors, ids, tables and figures. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { partyHint, shortId } from './format';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `load` whenever `deps` change, and every `refreshMs` when given. A refresh keeps the
 * data shown until the new answer arrives; an answer to an older request is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], refreshMs?: number): Loaded<T> {
  // What the data was loaded for: an answer for other deps is never shown as this one's, even for the one render before the new load starts.
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string; data: T | undefined; error: unknown; loading: boolean }>({
    key,
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback((forKey: string, keep: boolean) => {
    const mine = ++generation.current;
    setState((s) => (keep ? { ...s, loading: true } : { key: forKey, data: undefined, error: undefined, loading: true }));
    loadRef
      .current()
      .then((data) => {
        if (mine === generation.current) setState({ key: forKey, data, error: undefined, loading: false });
      })
      .catch((error: unknown) => {
        if (mine === generation.current) setState((s) => ({ key: forKey, data: keep ? s.data : undefined, error, loading: false }));
      });
  }, []);

  useEffect(() => {
    run(key, false);
    if (refreshMs === undefined) return undefined;
    const timer = setInterval(() => run(key, true), refreshMs);
    return () => clearInterval(timer);
  }, [key, refreshMs, run]);

  if (state.key !== key) return { data: undefined, error: undefined, loading: true, reload: () => run(key, true) };
  return { data: state.data, error: state.error, loading: state.loading, reload: () => run(key, true) };
}

/** An error as a person can read it: what failed, the server's message, and the request. */
export function ErrorMessage({ error, what }: { error: unknown; what: string }) {
  const message = error instanceof Error ? error.message : String(error);
  const detail =
    error instanceof ApiError ? `${error.status === 0 ? 'no answer' : `HTTP ${error.status}`} from ${error.request}` : undefined;
  return (
    <div class="error" role="alert">
      <strong>Could not load {what}.</strong> {message}
      {detail && <span class="error-detail"> ({detail})</span>}
    </div>
  );
}

/** Shows the loading state, the error, or the content of a load. */
export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (loaded.data !== undefined)
    return (
      <>
        {loaded.error !== undefined && <ErrorMessage error={loaded.error} what={what} />}
        {children(loaded.data)}
      </>
    );
  if (loaded.error !== undefined) return <ErrorMessage error={loaded.error} what={what} />;
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A long id, shortened, whole in its tooltip and for screen readers and copying. */
export function Id({ value, keep }: { value: string; keep?: number }) {
  return (
    <code class="id" title={value}>
      {shortId(value, keep)}
    </code>
  );
}

/** A party: its hint, linked to the party view, with the whole id in the tooltip. */
export function Party({ id }: { id: string }) {
  return (
    <a class="party" href={`#/party/${encodeURIComponent(id)}`} title={id}>
      {partyHint(id)}
    </a>
  );
}

/** A table that scrolls sideways on narrow screens, reachable by keyboard. */
export function Table({ label, head, children }: { label: string; head: ComponentChildren[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Named figures, as a description list; each figure carries a test id from its name. */
export function Figures({ items, label }: { items: [string, ComponentChildren][]; label?: string }) {
  return (
    <dl class="figures" aria-label={label}>
      {items.map(([name, value]) => (
        <div key={name} class="figure">
          <dt>{name}</dt>
          <dd data-figure={name}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `h-${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A one-field search that navigates to `#/<view>/<value>`, so that every result has an address. The
 * field follows the address when it changes (a link, the back button).
 */
export function SearchForm({
  view,
  id,
  label,
  button,
  value,
  placeholder,
  allowEmpty = false,
}: {
  view: string;
  id: string;
  label: string;
  button: string;
  /** What the address holds now. */
  value: string | undefined;
  placeholder?: string;
  allowEmpty?: boolean;
}) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  return (
    <form
      class="inline-form"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const given = text.trim();
        if (given !== '' || allowEmpty) location.hash = `#/${view}/${encodeURIComponent(given)}`;
      }}
    >
      <label for={id}>{label}</label>
      <input
        id={id}
        name={id}
        value={text}
        placeholder={placeholder}
        spellcheck={false}
        autoComplete="off"
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit">{button}</button>
    </form>
  );
}

function isWebUrl(url: string): boolean {
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * A URL from the ledger (a vote's reason, an ANS entry): a link only when it is http or https, so
 * that a `javascript:` or `data:` URL someone wrote into a contract is shown, never followed.
 */
export function ExternalLink({ url }: { url: string }) {
  if (!isWebUrl(url)) return <span class="wrap">{url}</span>;
  return (
    <a class="wrap" href={url} rel="noreferrer noopener" target="_blank">
      {url}
    </a>
  );
}
