/**
 * Standard Webhooks signatures (standardwebhooks: the reference implementation receivers verify with). The
 * message id and the body stay the same on every retry of one event; the timestamp and so the signature are
 * those of the attempt, since receivers refuse a timestamp more than five minutes old.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** A new signing secret, shown to the owner once: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** A new event's `webhook-id`: `msg_` + 32 hex digits. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}

export function signedHeaders(secret: string, messageId: string, body: string, at: Date): SignedHeaders {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
