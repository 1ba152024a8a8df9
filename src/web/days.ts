/** The anchor of the views' ranges of days: the ledger's newest day rather than the browser's clock. */
import { api } from './api';
import { useLoad, type Loaded } from './components';

/**
 * The UTC day of the newest update stored (from /status), so that a default range shows the network's
 * last days even when it lies in the past (a test network, a lagging mirror); today when none is stored.
 */
export function useLedgerDay(): Loaded<string> {
  return useLoad(async () => {
    const status = await api.status();
    const newest = status.migrations
      .map((m) => m.last_record_time)
      .filter((t): t is string => t !== null)
      .sort()
      .at(-1);
    return (newest ?? new Date().toISOString()).slice(0, 10);
  }, []);
}
