/** The activity view's list of latest updates: how pages and refreshes make one list without holes. */

interface Listed {
  update_id: string;
  record_time: string;
}

/** Newest first (record time, then update id, descending), each update once. */
export function newestFirst<U extends Listed>(updates: U[]): U[] {
  const seen = new Set<string>();
  return updates
    .filter((u) => !seen.has(u.update_id) && seen.add(u.update_id))
    .sort((a, b) => (a.record_time < b.record_time ? 1 : a.record_time > b.record_time ? -1 : a.update_id < b.update_id ? 1 : -1));
}

/**
 * The list after a refresh that asked for up to `pageSize` updates at or after the newest one shown.
 * A full page without that one means more came in than a page holds: the list starts again from the
 * page rather than show a hole between the new updates and the old.
 */
export function afterRefresh<U extends Listed>(current: U[], page: U[], pageSize: number): U[] {
  const newest = current[0];
  if (!newest) return page;
  const gap = page.length >= pageSize && !page.some((u) => u.update_id === newest.update_id);
  return gap ? page : newestFirst([...page, ...current]);
}
