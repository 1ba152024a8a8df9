/** The announced ACS snapshots, newest first, a page at a time by the API's page tokens. */
import { useState } from 'preact/hooks';
import { api, type AcsSnapshot } from './api';
import { useLoad, type Loaded } from './components';

const SNAPSHOT_PAGE = 100;

export interface SnapshotPages {
  /** The load of the first page. */
  first: Loaded<unknown>;
  /** Every snapshot loaded so far, newest first. */
  snapshots: AcsSnapshot[];
  /** The token of the next page, or null when there is none. */
  next: string | null;
  /** The error of the last "more", if it failed. */
  error?: unknown;
  more: () => void;
}

export function useSnapshots(): SnapshotPages {
  const [pages, setPages] = useState<{ snapshots: AcsSnapshot[]; next: string | null; error?: unknown }>({ snapshots: [], next: null });
  const first = useLoad(async () => {
    const page = await api.snapshots(SNAPSHOT_PAGE);
    setPages({ snapshots: page.snapshots, next: page.next_page_token });
    return page;
  }, []);
  const more = () => {
    if (pages.next === null) return;
    api
      .snapshots(SNAPSHOT_PAGE, pages.next)
      .then((page) => setPages((p) => ({ snapshots: [...p.snapshots, ...page.snapshots], next: page.next_page_token })))
      .catch((error: unknown) => setPages((p) => ({ ...p, error })));
  };
  return { first, ...pages, more };
}

/** A snapshot's key, as the picker's option value. */
export const snapshotKey = (s: AcsSnapshot): string => `${s.migration_id}|${s.record_time}`;
