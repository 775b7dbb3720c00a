import { createCipheriv, createHmac, hkdfSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeCursorBox, MAX_CURSOR_LENGTH } from "../src/page-cursors.ts";

const secret = Buffer.alloc(32, 7);
const box = makeCursorBox(secret);
const otherKeyBox = makeCursorBox(Buffer.alloc(32, 8));
const binding = fc.string({ maxLength: 80 });
const payload = fc.string({ maxLength: 120 });

describe("page cursors", () => {
  it("round-trip any payload under its binding", () => {
    fc.assert(fc.property(binding, payload, (b, p) => box.open(b, box.seal(b, p)) === p));
  });

  it("are URL-safe, deterministic and hide the payload", () => {
    const cursor = box.seal("company:1|listDebts|{}", "[20,1764000000123456,4242]");
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(box.seal("company:1|listDebts|{}", "[20,1764000000123456,4242]")).toBe(cursor);
    expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toMatch(/4242|1764/);
  });

  it("do not open under another binding: another company, list or filter", () => {
    fc.assert(
      fc.property(binding, binding, payload, (b, other, p) => {
        fc.pre(b !== other);
        return box.open(other, box.seal(b, p)) === undefined;
      }),
    );
    // The binding's length is authenticated: moving a character from the binding into the payload is another cursor.
    expect(box.seal("ab", "c")).not.toBe(box.seal("a", "bc"));
  });

  it("refuse any single-character change", () => {
    fc.assert(
      fc.property(payload, fc.nat(), fc.constantFrom(..."ABCxyz019_-"), (p, at, replacement) => {
        const cursor = box.seal("b", p);
        const position = at % cursor.length;
        fc.pre(cursor[position] !== replacement);
        const tampered = cursor.slice(0, position) + replacement + cursor.slice(position + 1);
        return box.open("b", tampered) === undefined;
      }),
    );
  });

  it("refuse truncated, extended, non-canonical, empty, oversized and foreign text", () => {
    const cursor = box.seal("b", "[1,2]");
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(cursor.slice(-1));
    const spellings = [1, 2, 3]
      .map((low) => cursor.slice(0, -1) + alphabet[(last & ~3) | ((last + low) & 3)])
      .filter((variant) => variant !== cursor && Buffer.from(variant, "base64url").equals(Buffer.from(cursor, "base64url")));
    for (const bad of [cursor.slice(0, -1), `${cursor}A`, "", "x", `${cursor}=`, "A".repeat(MAX_CURSOR_LENGTH + 4), ...spellings]) {
      expect(box.open("b", bad)).toBeUndefined();
    }
    expect(box.open("b", otherKeyBox.seal("b", "[1,2]"))).toBeUndefined();
    expect(box.open("b", cursor)).toBe("[1,2]");
  });

  it("are exactly the specified construction, computed independently", () => {
    const derive = (info: string) => Buffer.from(hkdfSync("sha256", secret, "debt-collection/page-cursors", info, 32));
    const reference = (b: string, p: string) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(b));
      const plaintext = Buffer.from(p);
      const iv = createHmac("sha256", derive("hmac-sha256 v1")).update(Buffer.concat([length, Buffer.from(b), plaintext])).digest().subarray(0, 16);
      const cipher = createCipheriv("aes-256-ctr", derive("aes-256-ctr v1"), iv);
      return Buffer.concat([Buffer.of(1), iv, cipher.update(plaintext), cipher.final()]).toString("base64url");
    };
    fc.assert(fc.property(binding, payload, (b, p) => box.seal(b, p) === reference(b, p)));
  });

  it("refuse a short master secret", () => {
    expect(() => makeCursorBox(Buffer.alloc(31))).toThrow(/at least 32 bytes/);
  });
});
