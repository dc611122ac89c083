/**
 * A deadline on the shared database's statements, so a PostgreSQL that hangs (a network cut: connections open,
 * nothing answers) costs a request a 503 within the deadline instead of the minutes TCP takes to give up. Bun's
 * client has no statement timeout, and a server-side `statement_timeout` never reaches a server cut away, so the
 * deadline is the client's: a statement on the pool, and the start of a transaction (a connection from the pool and
 * its BEGIN), that has not answered within it rejects with DatabaseTimeout (an Outage: the gate's 503).
 *
 * The statement itself is not cancelled (Bun cannot cancel one already sent): it finishes or fails when the network
 * returns, its answer dropped, and its connection goes back to the pool. Statements inside a transaction that has
 * begun, and reserved connections (the leases' and migrations'), have no deadline: a long copy or a leased job may
 * take as long as it needs.
 */
import type { SQL } from "bun";
import { Outage } from "../../core/errors";
import { withinDeadline } from "../../core/deadline";

export class DatabaseTimeout extends Outage {
  override readonly name = "DatabaseTimeout";
}

/** `work`'s outcome, or DatabaseTimeout after `ms`; a late outcome is dropped. */
const beforeDeadline = <T>(work: PromiseLike<T>, ms: number, what: string) => withinDeadline(work, ms, () => new DatabaseTimeout(`PostgreSQL did not ${what} within ${ms} ms`));

/** A query as drizzle and the stores use it (awaited, or asked for `.values()`), answering within the deadline. */
function deadlined(query: PromiseLike<unknown> & { values(): PromiseLike<unknown> }, ms: number): PromiseLike<unknown> & { values(): Promise<unknown> } {
  return {
    then: (onFulfilled, onRejected) => beforeDeadline(query, ms, "answer a statement").then(onFulfilled, onRejected),
    values: () => beforeDeadline(query.values(), ms, "answer a statement"),
  };
}

const isTemplate = (args: unknown[]) => Array.isArray(args[0]) && Object.hasOwn(args[0], "raw");

/** The pool `client` with a deadline of `ms` on its statements and on the start of its transactions. */
export function withDeadline(client: SQL, ms: number): SQL {
  return new Proxy(client, {
    // A tagged template (sql`SELECT …`) is a statement; sql(rows) and the like build parts of one.
    apply(target, thisArg, args: unknown[]) {
      const made = Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
      return isTemplate(args) ? deadlined(made as Parameters<typeof deadlined>[0], ms) : made;
    },
    get(target, property) {
      if (property === "unsafe") return (query: string, params?: unknown[]) => deadlined(target.unsafe(query, params), ms);
      if (property === "begin") {
        return (...args: unknown[]) =>
          new Promise((resolve, reject) => {
            const work = args.at(-1) as (tx: SQL) => Promise<unknown>;
            let late = false;
            const timer = setTimeout(() => {
              late = true;
              reject(new DatabaseTimeout(`PostgreSQL did not begin a transaction within ${ms} ms`));
            }, ms);
            const begin = target.begin as (...a: unknown[]) => Promise<unknown>;
            // Begun too late, it is rolled back before any of its work runs: its caller has had its answer.
            begin(...args.slice(0, -1), (tx: SQL) => {
              clearTimeout(timer);
              if (late) throw new DatabaseTimeout("a transaction begun after its deadline is rolled back");
              return work(tx);
            }).then(resolve, (err: unknown) => {
              clearTimeout(timer);
              reject(err);
            });
          });
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
