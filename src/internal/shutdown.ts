/**
 * One shutdown path: a single AbortController and cleanups run in reverse
 * order of registration (stop accepting, drain, close the pool, stop the
 * embedded database). SIGINT/SIGTERM/SIGHUP trigger it once; a second signal forces exit.
 */
import type { Logger } from './logger';

type Cleanup = { name: string; run: () => Promise<void> | void };

export class Shutdown {
  private readonly controller = new AbortController();
  private readonly cleanups: Cleanup[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  private markFinished: () => void = () => undefined;
  /** Settles once every cleanup has run. */
  readonly finished = new Promise<void>((resolve) => {
    this.markFinished = resolve;
  });

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Registers a cleanup; the last registered runs first. Once shutdown has begun, it runs at once. */
  add(name: string, run: Cleanup['run']): void {
    if (this.running) {
      void Promise.resolve()
        .then(run)
        .catch((err: unknown) => this.logger.error({ err, cleanup: name }, 'cleanup failed'));
      return;
    }
    this.cleanups.push({ name, run });
  }

  /** Runs every cleanup once, logging (not throwing) failures so the rest still run. */
  run(reason: string): Promise<void> {
    if (this.running) return this.running;
    this.logger.info({ reason }, 'shutting down');
    this.controller.abort(new Error(reason));
    this.running = (async () => {
      for (const cleanup of [...this.cleanups].reverse()) {
        try {
          await cleanup.run();
        } catch (err) {
          this.logger.error({ err, cleanup: cleanup.name }, 'cleanup failed');
        }
      }
      this.logger.info('shutdown complete');
      this.markFinished();
    })();
    return this.running;
  }

  /**
   * Runs the shutdown on SIGINT/SIGTERM/SIGHUP. A later signal exits at once; one
   * within a second of the first is taken as the same request (a terminal's
   * Ctrl-C reaches both npm and this process, and npm forwards it again).
   */
  installSignalHandlers(onDone: (code: number) => void): void {
    let firstAt: number | undefined;
    const handler = (signal: NodeJS.Signals) => {
      const now = Date.now();
      if (firstAt !== undefined && now - firstAt < 1000) return;
      if (firstAt !== undefined) {
        this.logger.warn({ signal }, 'second signal: exiting without waiting');
        onDone(130);
        process.exit(130);
      }
      firstAt = now;
      void this.run(signal).then(() => onDone(0));
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    // A closed terminal: the embedded server runs in its own session and would not hear it.
    process.on('SIGHUP', handler);
  }
}
