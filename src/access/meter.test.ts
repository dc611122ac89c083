import { describe, expect, test } from "bun:test";
import { ManualClock, utcDay } from "../core/clock";
import { UsageMeter } from "./meter";
import type { Principal } from "./registry";
import type { UsageCount, UsageStore } from "./store";

/**
 * A usage store that answers a few milliseconds late, as one over the network would: a read answers what was stored
 * when it was asked, a save is stored when it answers.
 */
class LateUsageStore implements UsageStore {
  readonly counts = new Map<string, number>();
  readonly windows = new Map<string, string>();
  reads = 0;

  private later<T>(answer: T): Promise<T> {
    return Bun.sleep(3).then(() => answer);
  }

  async saveUsage(counts: readonly UsageCount[], windows: readonly { keyId: string; recent: string }[]): Promise<void> {
    await Bun.sleep(3);
    for (const c of counts) {
      const k = `${c.keyId} ${c.day} ${c.endpoint}`;
      this.counts.set(k, (this.counts.get(k) ?? 0) + c.count);
    }
    for (const w of windows) this.windows.set(w.keyId, w.recent);
  }

  burstWindow(keyId: string): Promise<string | null> {
    return this.later(this.windows.get(keyId) ?? null);
  }

  countsByDay(keyIds: readonly string[], firstDay: string): Promise<Omit<UsageCount, "keyId">[]> {
    this.reads++;
    const rows = [...this.counts].flatMap(([k, count]) => {
      const [keyId, day, endpoint] = k.split(" ") as [string, string, string];
      return keyIds.includes(keyId) && day >= firstDay ? [{ day, endpoint, count }] : [];
    });
    return this.later(rows);
  }

  lastUsedDays(): Promise<Map<string, string>> {
    throw new Error("not used by the meter");
  }
  dayTotalsByKey(): Promise<Map<string, number>> {
    throw new Error("not used by the meter");
  }
  dayTotalsByAccount(): Promise<Map<number, number>> {
    throw new Error("not used by the meter");
  }
}

const principal: Principal = { keyId: "key_1", accountId: 1, plan: "starter", dailyLimit: 40, minuteLimit: 1000 };

/** One request as the gate makes it: wait for the key's load when there is one, then admit. */
async function request(meter: UsageMeter): Promise<boolean> {
  await meter.ready(principal);
  return meter.admit(principal, "spots.get").verdict.allowed;
}

describe("the meter over a store that answers late", () => {
  const clock = new ManualClock(Date.parse("2026-11-21T12:00:00Z"));

  test("a report first built while a flush is being stored counts every use once", async () => {
    const store = new LateUsageStore();
    const meter = new UsageMeter(store, clock);
    for (let i = 0; i < 5; i++) await request(meter);
    const flushing = meter.flush();
    const report = meter.report(principal);
    await flushing;
    expect((await report).today).toBe(5);
    expect(store.counts.get(`key_1 ${utcDay(clock.now())} spots.get`)).toBe(5);
  });

  test("concurrent first requests share one load; a restarted meter's quota knows what was stored", async () => {
    const store = new LateUsageStore();
    const meter = new UsageMeter(store, clock);
    const answers: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      answers.push(request(meter));
      if (i % 4 === 0) answers.push(meter.flush());
    }
    await Promise.all(answers);
    expect(store.reads).toBe(1);
    expect((await meter.report(principal)).today).toBe(30);
    await meter.flush();

    const restarted = new UsageMeter(store, clock);
    const allowed = await Promise.all(Array.from({ length: 15 }, () => request(restarted)));
    expect(allowed.filter(Boolean)).toHaveLength(10); // the quota of 40 less the 30 stored
    expect((await restarted.report(principal)).today).toBe(40);
  });

  test("admit() before the key was loaded is a mistake, not a silent count from zero", () => {
    const meter = new UsageMeter(new LateUsageStore(), new ManualClock(0));
    expect(() => meter.admit(principal, "spots.get")).toThrow("before ready()");
    expect(meter.ready(principal)).toBeInstanceOf(Promise);
  });
});
