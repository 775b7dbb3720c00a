import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base32, emailTrackingTokens } from "../src/email-tracking-tokens.ts";

const tokens = emailTrackingTokens(Buffer.alloc(32, 7));
const otherKey = emailTrackingTokens(Buffer.alloc(32, 8));
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
/** Links of any path and query; fast-check's own `webUrl` takes most of a second per sample. */
const link = fc
  .tuple(fc.constantFrom("https://pay.example", "http://collect.example:8080"), fc.string(), fc.string())
  .map(([origin, path, query]) => `${origin}/${encodeURIComponent(path)}?q=${encodeURIComponent(query)}&x=%20`);

describe("e-mail tracking tokens", () => {
  it("round-trip the company, the followup and a link's target", () => {
    fc.assert(
      fc.property(id, id, link, (companyId, followupId, target) => {
        const opened = tokens.verify("open", tokens.sign("open", { companyId, followupId }));
        const clicked = tokens.verify("click", tokens.sign("click", { companyId, followupId }, target));
        return (
          opened?.companyId === companyId &&
          opened.followupId === followupId &&
          opened.target === undefined &&
          clicked?.target === target
        );
      }),
      { numRuns: 30 },
    );
  });

  it("are lower-case base32, short enough for a bounce address, and read in any letter case", () => {
    const token = tokens.sign("bounce", { companyId: 1234, followupId: 9_876_543_210 });
    expect(token).toMatch(/^[a-z2-7]+$/);
    expect(token.length).toBeLessThanOrEqual(45);
    expect(tokens.verify("bounce", token.toUpperCase())?.followupId).toBe(9_876_543_210);
  });

  it("refuse another purpose, another key, and any altered character", () => {
    const token = tokens.sign("unsubscribe", { companyId: 3, followupId: 77 });
    expect(tokens.verify("open", token)).toBeUndefined();
    expect(otherKey.verify("unsubscribe", token)).toBeUndefined();
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz234567"), (at, character) => {
        fc.pre(token[at] !== character);
        return tokens.verify("unsubscribe", token.slice(0, at) + character + token.slice(at + 1)) === undefined;
      }),
    );
  });

  it("refuse a click token whose target was swapped for another", () => {
    const token = tokens.sign("click", { companyId: 3, followupId: 77 }, "https://pay.example/a");
    const forged = tokens.sign("click", { companyId: 3, followupId: 77 }, "https://evil.example/a");
    expect(token.slice(-26)).not.toBe(forged.slice(-26));
    expect(tokens.verify("click", token.slice(0, -26) + forged.slice(-26))).toBeUndefined();
  });

  it("write base32 as RFC 4648 does", () => {
    expect(base32(Buffer.from("foobar"))).toBe("mzxw6ytboi");
    expect(base32(Buffer.from("f"))).toBe("my");
  });
});
