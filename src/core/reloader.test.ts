import { describe, expect, test } from "bun:test";
import { Reloader } from "./reloader";

/** A copy of `source.value`, read when a load starts and kept when it resolves, as a store's answer would be. */
function copyOf(source: { value: number }) {
  const copy = { value: -1, loads: 0, release: [] as (() => void)[] };
  const reloader = new Reloader(async () => {
    copy.loads++;
    const read = source.value;
    await new Promise<void>((resolve) => copy.release.push(resolve));
    copy.value = read;
  });
  const releaseAll = async () => {
    while (copy.release.length > 0) {
      copy.release.shift()!();
      await Bun.sleep(0);
    }
  };
  return { copy, reloader, releaseAll };
}

describe("Reloader", () => {
  test("a reload asked while one runs follows it and holds the change made meanwhile; askers until it starts share it", async () => {
    const source = { value: 1 };
    const { copy, reloader, releaseAll } = copyOf(source);
    expect(reloader.inFlight).toBeNull();
    const first = reloader.reload();
    source.value = 2;
    const second = reloader.reload();
    const third = reloader.reload();
    expect(third).toBe(second);
    expect(reloader.inFlight).toBe(second);
    await releaseAll();
    await first;
    await Promise.all([second, third]);
    expect(copy.value).toBe(2);
    expect(copy.loads).toBe(2);
    expect(reloader.inFlight).toBeNull();
  });

  test("a failed reload rejects its askers and does not stop the next one", async () => {
    let fail = true;
    const reloader = new Reloader(async () => {
      if (fail) throw new Error("store away");
    });
    const failed = reloader.reload();
    const next = reloader.reload();
    fail = false;
    await expect(failed).rejects.toThrow("store away");
    await next;
    expect(reloader.inFlight).toBeNull();
  });
});
