/**
 * Reloads of an in-memory copy of stored data (the key registry, the servable embeds), one at a time. A reload asked
 * for while one runs may answer a change that the running one began reading before, so one more follows it, shared
 * by every caller until it starts: once a caller's reload resolves, the copy holds what was stored when it asked.
 */
export class Reloader {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly load: () => Promise<void>) {}

  /** The reload running or waiting to run, if any: a reader waits for it rather than answer from the older copy. */
  get inFlight(): Promise<void> | null {
    return this.queued ?? this.running;
  }

  reload(): Promise<void> {
    if (this.running === null) {
      this.running = this.load().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    const next = () => {
      this.queued = null;
      return this.reload();
    };
    return (this.queued ??= this.running.then(next, next));
  }
}
