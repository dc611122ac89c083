/** The ids and secrets an alert's events are made with: plain random values, no signing code (a server starts without it). */
import { randomBytes } from "node:crypto";

/** A new signing secret, shown to the owner once: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}

/** A new event's `webhook-id`: `msg_` + 32 hex digits. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}
