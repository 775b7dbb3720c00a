/**
 * Verification of Stripe's `Stripe-Signature` header
 * (https://docs.stripe.com/webhooks#verify-manually): `t=<unix seconds>`
 * and one or more `v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the
 * endpoint's signing secret; the timestamp must be within 5 minutes of now.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

export type SignatureCheck = "valid" | "invalid" | "stale";

/** The header Stripe would send for `payload` at `timestamp` (tests and the fake provider). */
export const stripeSignatureHeader = (secret: string, payload: string, timestamp: number): string =>
  `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex")}`;

export const verifyStripeSignature = (secret: string, header: string, payload: Buffer, now: Date): SignatureCheck => {
  const parts = header.split(",").map((part) => part.trim().split("="));
  const timestamp = parts.find(([key]) => key === "t")?.[1];
  const signatures = parts.filter(([key]) => key === "v1").map(([, value]) => value ?? "");
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) return "invalid";
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(payload).digest();
  const matches = signatures.some((signature) => {
    const presented = Buffer.from(signature, "hex");
    return /^[0-9a-f]{64}$/.test(signature) && timingSafeEqual(presented, expected);
  });
  if (!matches) return "invalid";
  return Math.abs(now.getTime() / 1000 - Number(timestamp)) <= SIGNATURE_TOLERANCE_SECONDS ? "valid" : "stale";
};
