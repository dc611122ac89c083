/**
 * The alert e-mail through a real SMTP exchange (a sink on 127.0.0.1): both parts and the List-Unsubscribe
 * headers arrive. The sender here is what the console's SMTP configuration hands the alerts (nodemailer from
 * SURFCAST_SMTP_URL).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import { alertEmail, type MailSender } from "../../../src/alerts/delivery/email";
import { sampleEvent } from "./sample-event";
import { startSmtpSink, type SmtpSink } from "../../support/smtp-sink";

let sink: SmtpSink;
beforeAll(async () => (sink = await startSmtpSink()));
afterAll(() => sink.close());

test("an alert e-mail arrives with text, HTML and one-click unsubscribe headers", async () => {
  const send: MailSender = async (message) => {
    const transport = nodemailer.createTransport(sink.url);
    try {
      await transport.sendMail({ from: "surfcast@example.com", ...message });
      return null;
    } catch (err) {
      return String(err);
    } finally {
      transport.close();
    }
  };
  const event = sampleEvent(new Date("2026-11-26T18:00:00Z"));
  expect(await send(alertEmail(event, "owner@example.com", { publicUrl: "https://surf.example", unsubscribeToken: "tok1" }))).toBeNull();
  expect(sink.messages).toHaveLength(1);
  const { to, raw } = sink.messages[0]!;
  expect(to).toEqual(["owner@example.com"]);
  expect(raw).toContain("List-Unsubscribe: <https://surf.example/alerts/unsubscribe/tok1>");
  expect(raw).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  expect(raw).toContain("Content-Type: text/plain");
  expect(raw).toContain("Content-Type: text/html");
});
