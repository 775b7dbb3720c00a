import { createCipheriv, createHmac, hkdfSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeIdCodec } from "../src/public-ids.ts";

const tags = { debt: 1, creditor: 2, followup: 3 } as const;
type Kind = keyof typeof tags;
const codec = makeIdCodec<Kind>(Buffer.alloc(32, 7), tags);
const otherKeyCodec = makeIdCodec<Kind>(Buffer.alloc(32, 8), tags);
const key = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const kind = fc.constantFrom<Kind>("debt", "creditor", "followup");

describe("public ids", () => {
  it("round-trip every key of every kind", () => {
    fc.assert(fc.property(kind, key, (k, n) => codec.decode(k, codec.encode(k, n)) === n));
  });

  it("are deterministic, URL-safe and 35 characters long", () => {
    const id = codec.encode("debt", 42);
    expect(codec.encode("debt", 42)).toBe(id);
    expect(id).toMatch(/^[A-Za-z0-9_-]{35}$/);
  });

  it("differ between kinds and keys", () => {
    expect(codec.encode("debt", 1)).not.toBe(codec.encode("creditor", 1));
    expect(codec.encode("debt", 1)).not.toBe(codec.encode("debt", 2));
  });

  it("reject an id of another kind", () => {
    fc.assert(
      fc.property(key, (n) => codec.decode("creditor", codec.encode("debt", n)) === undefined),
    );
  });

  it("reject any single-character change", () => {
    fc.assert(
      fc.property(kind, key, fc.nat(34), fc.constantFrom(..."ABCxyz019_-"), (k, n, position, replacement) => {
        const id = codec.encode(k, n);
        fc.pre(id[position] !== replacement);
        const tampered = id.slice(0, position) + replacement + id.slice(position + 1);
        return codec.decode(k, tampered) === undefined;
      }),
    );
  });

  it("reject a non-canonical spelling of a valid id (the last character's unused bits set)", () => {
    const id = codec.encode("debt", 7);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(id.slice(-1));
    for (let low = 1; low < 4; low++) {
      const variant = id.slice(0, -1) + alphabet[(last & ~3) | ((last + low) & 3)];
      expect(Buffer.from(variant, "base64url")).toEqual(Buffer.from(id, "base64url"));
      expect(codec.decode("debt", variant)).toBeUndefined();
    }
    expect(codec.decode("debt", id)).toBe(7);
  });

  it("reject truncated, extended, empty and non-base64url ids", () => {
    const id = codec.encode("debt", 7);
    for (const bad of [id.slice(0, -1), `${id}A`, "", "not an id", `${id.slice(0, -1)}=`, "../../etc/passwd", "1"]) {
      expect(codec.decode("debt", bad)).toBeUndefined();
    }
  });

  it("reject ids made with another server key", () => {
    fc.assert(fc.property(kind, key, (k, n) => codec.decode(k, otherKeyCodec.encode(k, n)) === undefined));
  });

  it("are exactly the specified construction (HMAC-SHA256 synthetic IV, AES-256-CTR), computed independently", () => {
    const secret = Buffer.alloc(32, 7);
    const derive = (info: string) => Buffer.from(hkdfSync("sha256", secret, "debt-collection/public-ids", info, 32));
    const reference = (tag: number, key: number) => {
      const plaintext = Buffer.alloc(10);
      plaintext.writeUInt8(1, 0);
      plaintext.writeUInt8(tag, 1);
      plaintext.writeBigUInt64BE(BigInt(key), 2);
      const iv = createHmac("sha256", derive("hmac-sha256")).update(plaintext).digest().subarray(0, 16);
      const cipher = createCipheriv("aes-256-ctr", derive("aes-256-ctr"), iv);
      return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]).toString("base64url");
    };
    fc.assert(fc.property(kind, key, (k, n) => codec.encode(k, n) === reference(tags[k], n)));
    // The same id twice (the second from the cache) is still the reference.
    expect(codec.encode("debt", 12345)).toBe(reference(1, 12345));
    expect(codec.encode("debt", 12345)).toBe(reference(1, 12345));
  });

  it("refuse a short master secret", () => {
    expect(() => makeIdCodec(Buffer.alloc(31), tags)).toThrow(/at least 32 bytes/);
  });
});
