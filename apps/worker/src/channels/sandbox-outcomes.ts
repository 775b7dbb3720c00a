/**
 * The magic values of the sandbox channels (docs/sandbox.md,
 * docs/decisions/0615): the outcome of a sandbox send is chosen by its
 * recipient, so an integrator steers a test debt to any outcome with its
 * e-mail address or phone number. A pure function of the message: the same
 * message always gets the same outcome, which is what lets `lookup` answer
 * after a crash exactly what `send` answered.
 */
import type { OutboundMessage, Outcome } from "./channel-adapter.ts";

const dayMs = 24 * 60 * 60 * 1000;

/** Days from the call to the date the sandbox debtor of a `0001` number promises to pay. */
export const sandboxPromiseDays = 7;

/** The provider message id of a sandbox send: its idempotency key, so a resend names the same message. */
export const sandboxMessageId = (message: Pick<OutboundMessage, "idempotencyKey">): string =>
  `sandbox:${message.idempotencyKey}`;

const failed = (retryable: boolean, error: string): Outcome => ({ status: "failed", retryable, error });

/** The last four digits of a phone number, or "" when it has fewer. */
const phoneEnding = (recipient: string): string => {
  const digits = recipient.replace(/\D/g, "");
  return digits.length >= 4 ? digits.slice(-4) : "";
};

/** The tag of an e-mail address's local part (`jane+bounce@x` -> `bounce`), lower case, or "". */
const emailTag = (recipient: string): string => {
  const at = recipient.lastIndexOf("@");
  const local = (at === -1 ? recipient : recipient.slice(0, at)).toLowerCase();
  const plus = local.lastIndexOf("+");
  return plus === -1 ? "" : local.slice(plus + 1);
};

const emailOutcome = (message: OutboundMessage): Outcome => {
  const id = sandboxMessageId(message);
  switch (emailTag(message.recipient)) {
    case "bounce":
      return failed(false, "sandbox: the mailbox does not exist (hard bounce)");
    case "deferred":
      return failed(true, "sandbox: the mailbox is temporarily unavailable (soft bounce)");
    case "sent":
      return { status: "sent", providerMessageId: id };
    default:
      return { status: "delivered", providerMessageId: id };
  }
};

const callOutcome = (message: OutboundMessage): Outcome => {
  const providerMessageId = sandboxMessageId(message);
  switch (phoneEnding(message.recipient)) {
    case "0001":
      return {
        status: "deal_found",
        conversation: true,
        durationMs: 95_000,
        promiseUntil: new Date(message.at.getTime() + sandboxPromiseDays * dayMs),
        summary: `sandbox: the debtor promised to pay within ${sandboxPromiseDays} days`,
        providerMessageId,
      };
    case "0002":
      return {
        status: "no_answer",
        conversation: false,
        durationMs: 0,
        summary: "sandbox: nobody answered",
        providerMessageId,
      };
    case "0003":
      return {
        status: "no_answer",
        conversation: false,
        voicemail: true,
        durationMs: 25_000,
        summary: "sandbox: the call reached voicemail; a message was left",
        providerMessageId,
      };
    case "0004":
      return {
        status: "deal_not_found",
        conversation: true,
        durationMs: 120_000,
        summary: "sandbox: the debtor refused to pay",
        providerMessageId,
      };
    case "0005":
      return {
        status: "bad_behavior",
        conversation: true,
        durationMs: 45_000,
        summary: "sandbox: the debtor was abusive and hung up",
        providerMessageId,
      };
    case "0008":
      return failed(false, "sandbox: the number is not in service");
    case "0009":
      return failed(true, "sandbox: the carrier is temporarily unavailable");
    default:
      return {
        status: "no_answer",
        conversation: false,
        durationMs: 0,
        summary: "sandbox: nobody answered",
        providerMessageId,
      };
  }
};

const textOutcome = (message: OutboundMessage): Outcome => {
  const providerMessageId = sandboxMessageId(message);
  switch (phoneEnding(message.recipient)) {
    case "0006":
      return { status: "sent", providerMessageId };
    case "0008":
      return failed(false, "sandbox: the number is not in service");
    case "0009":
      return failed(true, "sandbox: the carrier is temporarily unavailable");
    default:
      return { status: "delivered", providerMessageId };
  }
};

const letterOutcome = (message: OutboundMessage): Outcome =>
  /undeliverable/i.test(message.recipient)
    ? failed(false, "sandbox: the address is unknown; the letter was returned")
    : { status: "sent", providerMessageId: sandboxMessageId(message) };

/** The outcome the sandbox provider gives `message` (docs/sandbox.md has the table). */
export const sandboxOutcome = (message: OutboundMessage): Outcome => {
  if (message.recipient.trim() === "") return failed(false, "sandbox: the message has no recipient");
  switch (message.channel) {
    case "email":
      return emailOutcome(message);
    case "ai_call":
    case "manual_call":
      return callOutcome(message);
    case "sms":
    case "whatsapp":
    case "voicemail":
      return textOutcome(message);
    case "postmail":
      return letterOutcome(message);
  }
};
