/**
 * E-mails console links when SURFCAST_SMTP_URL is set (nodemailer: the maintained SMTP client for Node and
 * Bun, with TLS, auth and connection-URL parsing we would not want to write). Without it, printing the link
 * is the whole delivery.
 */
import type { Config } from "../config";
import type { Invitation } from "./invitations";

export function invitationText(invitation: Invitation, publicUrl: string): { subject: string; text: string } {
  const days = Math.round((Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000);
  const intro =
    invitation.kind === "invitation"
      ? `You have been invited to the Surfcast developer console at ${publicUrl}/console (plan: ${invitation.account.plan}).`
      : `Someone asked for a new password for your Surfcast developer console account at ${publicUrl}/console.`;
  return {
    subject: invitation.kind === "invitation" ? "Your Surfcast invitation" : "Set your Surfcast password",
    text: `${intro}\n\nOpen this link to choose your password (it works once, for ${days} days):\n\n${invitation.url}\n\nIf you did not expect this e-mail, ignore it.\n`,
  };
}

/** One message through SURFCAST_SMTP_URL; resolves to null when sent, else the reason it was not (never throws). */
export async function sendMail(config: Pick<Config, "smtpUrl" | "smtpFrom">, message: { to: string; subject: string; text: string; html?: string; headers?: Record<string, string> }): Promise<string | null> {
  if (!config.smtpUrl) return "SURFCAST_SMTP_URL is not set";
  // Loaded at the first message, and with require: the bundle evaluates a package reached by import(), with the
  // node:http, tls, dns and child_process modules it imports, at every start of every command.
  const nodemailer = require("nodemailer") as typeof import("nodemailer");
  const transport = nodemailer.createTransport(config.smtpUrl);
  try {
    await transport.sendMail({ from: config.smtpFrom, ...message });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    transport.close();
  }
}

/** Sends the link; resolves to null when sent, else the reason it was not (never throws). */
export function mailInvitation(config: Config, invitation: Invitation): Promise<string | null> {
  return sendMail(config, { to: invitation.account.email, ...invitationText(invitation, config.publicUrl) });
}
