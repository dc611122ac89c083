import { describe, expect, test } from "bun:test";
import { HOUR_MS, ManualClock } from "../core/clock";
import type { Principal } from "../access/registry";
import type { AlertRecord } from "./store";
import type { AlertWindow } from "./condition";
import { CalendarFeeds, FEED_FETCHES_PER_HOUR, FeedAllowance, type FeedServices } from "./feeds";

const START = Date.parse("2026-11-27T10:20:00Z");
const TOKEN = "t".repeat(43);

const alert: AlertRecord = {
  id: "alert_0123456789abcdef",
  keyId: "key_0123456789abcdef",
  spotId: "pipeline",
  name: "Dawn",
  condition: { minWave: 0, daylight: false },
  delivery: "webhook",
  target: "https://hooks.example/surf",
  webhookSecret: "whsec_x",
  calendarTokenHash: "h",
  disabledReason: null,
  disabledAt: null,
  createdAt: START,
  confirmedAt: START,
  confirmTokenHash: null,
  confirmSentAt: null,
};
const principal: Principal = { keyId: alert.keyId, accountId: 1, plan: "pro", dailyLimit: 1000, minuteLimit: 60 };
const windowAt = (start: string): AlertWindow => ({
  start,
  end: new Date(Date.parse(start) + 3 * HOUR_MS).toISOString(),
  best: { time: start, waveHeight: 1.5, wavePeriod: 12, windSpeed: 8, windDirectionType: "offshore", rating: 4 },
});

/** Feeds over stand-ins that count what each fetch cost: forecast reads, recorded usage. */
function world() {
  const clock = new ManualClock(START);
  const state = { generation: 0, active: true, deleted: false, reads: 0, recorded: [] as string[] };
  const services: FeedServices = {
    alerts: {
      calendar: async (token) => (token === TOKEN && !state.deleted ? alert : null),
      nextWindows: async () => {
        state.reads++;
        return [windowAt("2026-11-27T16:00:00Z")];
      },
    },
    forecasts: { generation: () => state.generation },
    keys: { poll: () => null, principalById: (id) => (id === alert.keyId && state.active ? principal : null) },
    meter: { ready: () => null, record: (_p, endpoint) => void state.recorded.push(endpoint) },
    spots: { find: () => ({ name: "Pipeline", timezone: "Pacific/Honolulu" }) },
    clock,
    config: { publicUrl: "https://surf.example" },
  };
  return { clock, state, feeds: new CalendarFeeds(() => services) };
}

describe("calendar feeds", () => {
  test("the text is kept: a second fetch reads no forecast; a refresh (the forecasts' generation) or the next hour builds it again", async () => {
    const { clock, state, feeds } = world();
    const first = await feeds.fetch(TOKEN);
    expect(first.kind).toBe("feed");
    expect(first.kind === "feed" && first.text).toContain("BEGIN:VEVENT");
    expect(await feeds.fetch(TOKEN)).toEqual(first);
    expect(state.reads).toBe(1);
    expect(feeds.tally).toEqual({ built: 1, kept: 1, spent: 0 });
    state.generation++;
    await feeds.fetch(TOKEN);
    expect(state.reads).toBe(2);
    clock.advance(HOUR_MS);
    await feeds.fetch(TOKEN);
    await feeds.fetch(TOKEN);
    expect(state.reads).toBe(3);
    expect(feeds.tally).toEqual({ built: 3, kept: 2, spent: 0 });
  });

  test("every fetch served is counted as `calendar` in its key's usage", async () => {
    const { state, feeds } = world();
    for (let i = 0; i < 3; i++) await feeds.fetch(TOKEN);
    expect(state.recorded).toEqual(["calendar", "calendar", "calendar"]);
  });

  test("absent, uncounted and unread: an unknown token, a revoked key or disabled account, a deleted alert", async () => {
    const { state, feeds } = world();
    expect(await feeds.fetch("u".repeat(43))).toEqual({ kind: "absent" });
    await feeds.fetch(TOKEN);
    state.active = false;
    expect(await feeds.fetch(TOKEN)).toEqual({ kind: "absent" });
    state.active = true;
    state.deleted = true;
    expect(await feeds.fetch(TOKEN)).toEqual({ kind: "absent" });
    expect(state.recorded).toEqual(["calendar"]);
    expect(state.reads).toBe(1);
  });

  test("past the hour's allowance: spent until the UTC hour turns, uncounted", async () => {
    const { clock, state, feeds } = world();
    for (let i = 0; i < FEED_FETCHES_PER_HOUR; i++) expect((await feeds.fetch(TOKEN)).kind).toBe("feed");
    // 10:20 UTC: the hour turns in 40 minutes.
    expect(await feeds.fetch(TOKEN)).toEqual({ kind: "spent", retryAfterSeconds: 40 * 60 });
    expect(state.recorded).toHaveLength(FEED_FETCHES_PER_HOUR);
    expect(feeds.tally.spent).toBe(1);
    clock.set("2026-11-27T11:00:00Z");
    expect((await feeds.fetch(TOKEN)).kind).toBe("feed");
  });
});

describe("FeedAllowance", () => {
  test("per feed and UTC hour", () => {
    const allowance = new FeedAllowance(2);
    expect([allowance.take("a", START), allowance.take("a", START), allowance.take("b", START)]).toEqual([null, null, null]);
    expect(allowance.take("a", START + 1000)).toBe(40 * 60 - 1);
    expect(allowance.take("a", Date.parse("2026-11-27T10:59:59.500Z"))).toBe(1);
    expect(allowance.take("a", Date.parse("2026-11-27T11:00:00Z"))).toBeNull();
  });
});
