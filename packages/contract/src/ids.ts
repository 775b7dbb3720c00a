/** Encrypted opaque ids on the wire (contract 2.1.1). */
import { Schema } from "effect";

export const EncryptedId = (kind: string) =>
  Schema.String.annotations({
    description: `Encrypted ${kind} id (opaque, URL-safe)`,
    examples: ["kT3x9bq2Zr1YhVdQ0aWmE8sJ4LcPfNuGoXi"],
  });
