/**
 * One database read for the live-stream subscribers that ask the same thing at the same time. After a
 * commit every subscriber at the live edge reads the events after the same cursor: with a thousand of
 * them, a thousand identical queries queued on the pool made delivery seconds late (docs/performance.md,
 * "The live stream"). A read joins one in flight only when it is asked under the same hub generation:
 * no commit notice arrived between the two askings, so the shared answer is as fresh as the joiner's
 * own would have been (a commit it may miss wakes both again, as for a read of its own). The rows
 * returned are shared between the subscribers and must not be changed.
 */
export class SharedReads {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  /** `run`'s answer, or that of an identical read (same key) still in flight. */
  read<T>(key: string, run: () => Promise<T>): Promise<T> {
    const found = this.inFlight.get(key);
    if (found) return found as Promise<T>;
    const started = run().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Reads in flight, for tests. */
  get size(): number {
    return this.inFlight.size;
  }
}
