/** Company users' password hashes (docs/decisions/0203): scrypt with its parameters in the hash. */
import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, SCRYPT, verifyPassword } from "../src/oauth/secrets.ts";

describe("password hashes", () => {
  it("use OWASP's 16 MiB scrypt settings and record them in the hash", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", hash)).toBe(false);
    expect(SCRYPT).toEqual({ N: 16_384, r: 8, p: 5 });
  });

  it("still verify a hash made with earlier parameters", async () => {
    const salt = randomBytes(16);
    const earlier = scryptSync("Ünïcode pass", salt, 32, { N: 16_384, r: 8, p: 1 });
    const stored = ["scrypt", 16_384, 8, 1, salt.toString("base64url"), earlier.toString("base64url")].join("$");
    expect(await verifyPassword("Ünïcode pass", stored)).toBe(true);
    expect(await verifyPassword("Unicode pass", stored)).toBe(false);
  });

  it("refuse a stored value that is not a scrypt hash", async () => {
    expect(await verifyPassword("x", "bcrypt$2b$10$abc")).toBe(false);
    expect(await verifyPassword("x", "scrypt$16384$8")).toBe(false);
  });
});
