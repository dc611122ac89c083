import { expect, test } from "bun:test";
import { Serial } from "./serial";

test("Serial: sections run one at a time in the order asked, the first at once, a failure does not stop the next", async () => {
  const serial = new Serial();
  const events: string[] = [];
  const section = (name: string, fail = false) => async () => {
    events.push(`${name} starts`);
    await Bun.sleep(5);
    events.push(`${name} ends`);
    if (fail) throw new Error(name);
    return name;
  };
  const a = serial.run(section("a"));
  expect(events).toEqual(["a starts"]);
  const b = serial.run(section("b", true));
  const c = serial.run(section("c"));
  expect(await a).toBe("a");
  await expect(b).rejects.toThrow("b");
  expect(await c).toBe("c");
  expect(events).toEqual(["a starts", "a ends", "b starts", "b ends", "c starts", "c ends"]);
});
