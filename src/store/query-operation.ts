/**
 * Names the repository operation that a query runs for, so that query
 * durations are reported under a bounded name (the repository function's),
 * never under SQL text. The name travels with the async context, so that the
 * queries of a transaction or of a nested helper count for the operation that
 * started them (the innermost named one).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Queries run outside any named operation count under this name. */
const UNNAMED_OPERATION = 'other';

export function repositoryOperation<A extends unknown[], R>(name: string, work: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args: A) => current.run(name, () => work(...args));
}

export function currentOperation(): string {
  return current.getStore() ?? UNNAMED_OPERATION;
}
