/** SHA-256 of a request's exact body bytes: the identity of its content for idempotent retries. */
import { createHash } from "node:crypto";

export const bodyDigest = (rawBody: Buffer): Buffer => createHash("sha256").update(rawBody).digest();
