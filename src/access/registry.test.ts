/** The key registry: a presented key is looked up by its hash; the keys it remembers as sent go at a reload and at the idle release. */
import { expect, test } from "bun:test";
import { clearCaches } from "../core/caches";
import { generateKey, generateKeyId, hashKey } from "./keys";
import { KeyRegistry } from "./registry";
import type { AccountRecord, OwnedKey } from "./store";

const account: AccountRecord = { id: 1, email: "a@example.com", plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: null, disabled: false, createdAt: 0, passwordHash: null, admin: false };

function registryOf(keys: string[]): KeyRegistry {
  const rows: OwnedKey[] = keys.map((k) => ({ account, key: { id: generateKeyId(), accountId: 1, name: "k", hash: hashKey(k), prefix: k.slice(0, 12), createdAt: 0, revokedAt: null } }));
  return new KeyRegistry({ activeKeys: async () => rows }, () => false);
}

test("presented keys are remembered as sent only until the idle release or a reload; they still authenticate after", async () => {
  const [a, b] = [generateKey(), generateKey()];
  const registry = registryOf([a, b]);
  await registry.reload();
  expect(registry.authenticate(a)).toMatchObject({ accountId: 1 });
  expect(registry.authenticate(b)).toMatchObject({ accountId: 1 });
  expect(registry.remembered).toBe(2);
  clearCaches();
  expect(registry.remembered).toBe(0);
  expect(registry.authenticate(a)).toMatchObject({ accountId: 1 });
  expect(registry.remembered).toBe(1);
  await registry.reload();
  expect(registry.remembered).toBe(0);
});

test("an unknown key is refused and not remembered", async () => {
  const registry = registryOf([generateKey()]);
  await registry.reload();
  expect(registry.authenticate(generateKey())).toMatchObject({ code: "invalid_key" });
  expect(registry.remembered).toBe(0);
});
