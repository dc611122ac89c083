import { describe, expect, test } from "bun:test";
import { localMonth, seasonClause } from "./season";

// The synthetic seasons of the binary test's Supertubos, and a spot whose intermediates have one best month.
const SUPERTUBOS = { beginner: [6, 7, 8], intermediate: [3, 4, 5, 9, 10, 11], advanced: [1, 2, 3, 4, 5, 9, 10, 11, 12] };
const NARROW = { beginner: [], intermediate: [3], advanced: [3, 4] };
const EVERYWHEN = { beginner: [11], intermediate: [10, 11], advanced: [11, 12] };

describe("seasonClause: said when the month is among a level's best, else nothing", () => {
  test.each([
    [SUPERTUBOS, 11, undefined, "November is one of this spot's best months for intermediates and advanced surfers"],
    [SUPERTUBOS, 7, undefined, "July is one of this spot's best months for beginners"],
    [SUPERTUBOS, 1, undefined, "January is one of this spot's best months for advanced surfers"],
    // Only the levels asked for count.
    [SUPERTUBOS, 11, ["beginner"], null],
    [SUPERTUBOS, 11, ["intermediate"], "November is one of this spot's best months for intermediates"],
    // The only best month is "the best month"; one of several for any level, "one of".
    [NARROW, 3, ["intermediate"], "March is this spot's best month for intermediates"],
    [NARROW, 3, undefined, "March is one of this spot's best months for intermediates and advanced surfers"],
    [NARROW, 6, undefined, null],
    [EVERYWHEN, 11, undefined, "November is one of this spot's best months for every level"],
    [{ beginner: [11], intermediate: [11], advanced: [11] }, 11, undefined, "November is this spot's best month for every level"],
    // No good day at all: empty lists, nothing said.
    [{ beginner: [], intermediate: [], advanced: [] }, 11, undefined, null],
    // The climate not known yet.
    [null, 11, undefined, null],
  ] as const)("%j, month %p, levels %j → %p", (best, month, levels, expected) =>
    expect(seasonClause(best as Parameters<typeof seasonClause>[0], month, levels)).toBe(expected),
  );
});

describe("localMonth: the month on the spot's clock", () => {
  test.each([
    ["2026-11-30T23:30:00Z", "Europe/Lisbon", 11],
    ["2026-11-30T23:30:00Z", "Asia/Makassar", 12],
    ["2026-12-01T02:00:00Z", "Pacific/Honolulu", 11],
  ])("%p in %p → %p", (at, zone, month) => expect(localMonth(Date.parse(at), zone)).toBe(month));
});
