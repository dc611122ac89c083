/**
 * Notices commits made through other connections — other surfcast processes: the console (`accounts`, `keys`),
 * `refresh`, `spots import` — by SQLite's `PRAGMA data_version`, which moves when another connection commits
 * (never for this connection's own writes). Polled at most once per second per database, so a request pays a
 * clock read, not a query; other processes' changes show within about a second.
 */
import type { Database } from "bun:sqlite";
import type { Db } from "./index";

const POLL_MS = 1000;

export class ExternalWrites {
  private version: number;
  private checkedAt = -Infinity;
  private noticed = 0;

  constructor(private readonly client: Database) {
    this.version = this.read();
  }

  /** How many times other connections' commits have been noticed: a new number means "reload what you keep". */
  generation(now = Date.now()): number {
    if (now - this.checkedAt >= POLL_MS) {
      this.checkedAt = now;
      const version = this.read();
      if (version !== this.version) {
        this.version = version;
        this.noticed++;
      }
    }
    return this.noticed;
  }

  private read(): number {
    return (this.client.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }
}

/**
 * A check for one in-memory copy: true on its first call, then whenever another connection's commit has been
 * noticed since its last call (the copy should be reloaded or dropped).
 */
export function changeCheck(db: Db): () => boolean {
  const detector = externalWrites(db);
  let seen = -1;
  return () => {
    const generation = detector.generation();
    if (generation === seen) return false;
    seen = generation;
    return true;
  };
}

const detectors = new WeakMap<Database, ExternalWrites>();

/** The one detector of a database connection, shared by everything that keeps data in memory. */
export function externalWrites(db: Db): ExternalWrites {
  let detector = detectors.get(db.$client);
  if (!detector) detectors.set(db.$client, (detector = new ExternalWrites(db.$client)));
  return detector;
}
