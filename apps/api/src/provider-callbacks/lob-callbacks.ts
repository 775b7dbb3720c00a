/** Verifies Lob's webhooks (`Lob-Signature` with `LOB_WEBHOOK_SECRET`, recent `Lob-Signature-Timestamp`) and keys them for storage. */
import { Lob } from "@dc/providers";
import type { AppServices } from "../services.ts";
import type { VerifyCallback } from "./receive-callback.ts";

const header = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;

export const verifyLob =
  (services: AppServices): VerifyCallback =>
  ({ headers, body }) => {
    const secret = services.config.providers.lob?.webhookSecret;
    if (secret === undefined) return undefined;
    const verdict = Lob.verifyLobSignature(
      secret,
      { signature: header(headers[Lob.LOB_SIGNATURE_HEADER]), timestamp: header(headers[Lob.LOB_TIMESTAMP_HEADER]) },
      body,
      services.clock.now(),
    );
    if (verdict !== "valid") return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return [];
    }
    const received = Lob.receivedCallback(payload);
    return received === undefined ? [] : [received];
  };
