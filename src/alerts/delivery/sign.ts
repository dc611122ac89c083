/**
 * Standard Webhooks signatures (standardwebhooks: the reference implementation receivers verify with). The
 * message id and the body stay the same on every retry of one event; the timestamp and so the signature are
 * those of the attempt, since receivers refuse a timestamp more than five minutes old.
 */
import { Webhook } from "standardwebhooks";

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}


export function signedHeaders(secret: string, messageId: string, body: string, at: Date): SignedHeaders {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
