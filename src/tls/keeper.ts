/**
 * Keeps one certificate for the names of `serve --https`: the stored one at start when it still covers them, an
 * order when there is none or its renewal is due, checked at least daily, with backoff after a failure. A failure
 * keeps the certificate served and is one log line naming its cause and what to check. Servers sharing a store
 * take turns: each check that finds its certificate due runs under `exclusive`, where a certificate another server
 * saved meanwhile is taken instead of a new order.
 */
import { log } from "../core/log";
import type { AcmeFailure } from "./acme-errors";
import { certificateInfo } from "./acme";
import { FIRST_RETRY_MS, nextCheckIn, renewalAt, type Validity } from "./renewal";
import type { CertificateState } from "./state";
import type { CertificatePair, CertificateStore } from "./store";

export interface KeeperOptions {
  domains: readonly string[];
  store: CertificateStore;
  order(domains: readonly string[]): Promise<CertificatePair>;
  /**
   * Runs `job` while no other server sharing the store runs it (the job lease), telling it when an attempt last
   * failed on another server (null when none did); throws when it cannot.
   */
  exclusive<T>(job: (othersFailedAt: number | null) => Promise<T>): Promise<T>;
  explain(err: unknown): AcmeFailure;
  now(): number;
  state: CertificateState;
  /** Called with every certificate to serve: the stored one at start, then each new one. */
  serve(pair: CertificatePair): void;
}

/** The store's name of the certificate: its first domain. */
const nameOf = (domains: readonly string[]) => domains[0]!;

/**
 * Another server's attempt failed less than the first retry's wait ago: this one leaves the retry to that server's
 * backoff instead of doubling its failures (Let's Encrypt counts failed validations per name).
 */
class AnotherServerFailed extends Error {}
const ANOTHER_SERVER_FAILED: AcmeFailure = { cause: "another server sharing the database tried just before and failed", check: "that server's log for the cause" };

const inWords = (ms: number) => (ms >= 3_600_000 ? `${Math.round(ms / 3_600_000)} h` : ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`);

export class CertificateKeeper {
  private validity: Validity | null = null;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly options: KeeperOptions) {}

  /** Serves the stored certificate if it covers the names, and schedules the first check (at once without one). */
  async start(): Promise<void> {
    const stored = await this.stored();
    if (stored !== null) {
      if (stored.covers) this.use(stored.pair, stored.info);
      else log.info("the stored certificate does not cover every name given to --https: ordering a new one", { names: stored.info.names.join(","), wanted: this.options.domains.join(",") });
    }
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async stored() {
    const pair = await this.options.store.certificate(nameOf(this.options.domains));
    if (pair === null) return null;
    const info = certificateInfo(pair.cert);
    return { pair, info, covers: this.options.domains.every((d) => info.names.includes(d)) };
  }

  private use(pair: CertificatePair, validity: Validity): void {
    this.validity = validity;
    this.options.state.served(validity.notAfter);
    this.options.serve(pair);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check(), nextCheckIn(this.validity, this.failures, this.options.now()));
  }

  private async check(): Promise<void> {
    const { domains, now } = this.options;
    if (this.validity === null || now() >= renewalAt(this.validity)) {
      const renewing = this.validity !== null;
      try {
        const got = await this.options.exclusive((othersFailedAt) => this.storedOrOrdered(renewing, othersFailedAt));
        // A server stopping while the order ran serves nothing more.
        if (this.stopped) return;
        // Not thrown inside the turn: the lease records a failure as this server's, which would hold the others back.
        if (got === null) throw new AnotherServerFailed();
        const { pair, info, ordered } = got;
        this.failures = 0;
        this.use(pair, info);
        log.info("certificate in service", { domains: domains.join(","), expires: new Date(info.notAfter).toISOString(), ordered: ordered ? undefined : "by another server" });
      } catch (err) {
        if (this.stopped) return;
        this.failures += 1;
        this.fail(err, renewing);
      }
    }
    this.schedule();
  }

  /**
   * The stored certificate when it covers the names and is not due (another server ordered it), else a new order,
   * stored; none (null) shortly after another server's attempt failed.
   */
  private async storedOrOrdered(renewing: boolean, othersFailedAt: number | null) {
    const { domains, store, now } = this.options;
    const stored = await this.stored();
    if (stored?.covers && now() < renewalAt(stored.info)) return { ...stored, ordered: false };
    if (othersFailedAt !== null && now() - othersFailedAt < FIRST_RETRY_MS) return null;
    log.info(renewing ? "renewing the certificate" : "ordering a certificate", { domains: domains.join(",") });
    const pair = await this.options.order(domains);
    const info = certificateInfo(pair.cert);
    await store.saveCertificate(nameOf(domains), pair);
    return { pair, info, ordered: true };
  }

  private fail(err: unknown, renewing: boolean): void {
    const { cause, check } = err instanceof AnotherServerFailed ? ANOTHER_SERVER_FAILED : this.options.explain(err);
    const retry = inWords(nextCheckIn(this.validity, this.failures, this.options.now()));
    const kept = renewing ? "; the current certificate stays in use" : "";
    if (renewing) this.options.state.renewalFailure = cause;
    log.error(`could not get a certificate for ${this.options.domains.join(", ")}: ${cause}${kept}; check ${check}; next attempt in ${retry}`, {
      detail: err instanceof AnotherServerFailed ? undefined : err instanceof Error ? err.message : String(err),
    });
  }
}
