/**
 * What a source gives the worker: canonical items in order, each with the
 * position to resume after it. Each source converts its own wire format into
 * the canonical item (src/domain/items.ts) and nothing else.
 */
import type { CanonicalItem } from '../domain/items';
import type { ItemTexts } from './sources/item-text';

export interface SourceItem {
  item: CanonicalItem;
  /**
   * The JSON texts of the item's members as received, where they are in JSON.stringify's form:
   * the writer stores them as they are. An item with `texts.updateProtobuf` may lack
   * `update_protobuf_json`.
   */
  texts?: ItemTexts;
  /** Opaque position after this item; the worker checkpoints it with the batch. */
  position: string;
  /** Where the item came from, for error messages (a line number, a page cursor). */
  origin: string;
}

export interface Source {
  /** The checkpoint key of this stream, stable across restarts (e.g. `file:/abs/path`). */
  readonly stream: string;
  /**
   * Items after `from` (undefined: from the beginning), pulled one at a time so
   * that a slow writer slows the source: no unbounded buffering. Ends when the
   * source is exhausted (file, backfill) or when `signal` aborts (live sources).
   */
  read(from: string | undefined, signal: AbortSignal): AsyncIterable<SourceItem>;
}

/** Bad input from a source: stops ingestion, naming the item and what is wrong. */
export class SourceItemError extends Error {
  constructor(
    readonly origin: string,
    readonly updateId: string | undefined,
    reason: string,
  ) {
    super(`${origin}${updateId ? ` (update ${updateId})` : ''}: ${reason}`);
    this.name = 'SourceItemError';
  }
}
