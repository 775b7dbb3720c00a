import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DEBTOR_LINK_PERIOD_DAYS, debtPaymentLink, debtorLinks } from "../src/debtor-links.ts";

const secret = new Uint8Array(Buffer.from("a test secret of at least thirty-two bytes!!"));
const links = debtorLinks(secret);
const DAY_MS = 86_400_000;
const now = new Date("2026-11-21T10:00:00Z");

describe("debtor links", () => {
  it("round-trips any company and debt id, and a link is stable within its period", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (companyId, debtId) => {
        const token = links.token({ companyId, debtId }, now);
        expect(token).toMatch(/^[A-Za-z0-9_-]{48}$/);
        const checked = links.check(token, now);
        expect(checked).toMatchObject({ status: "valid", target: { companyId, debtId } });
      }),
    );
    const periodStart = new Date(Math.floor(now.getTime() / DAY_MS / DEBTOR_LINK_PERIOD_DAYS) * DEBTOR_LINK_PERIOD_DAYS * DAY_MS);
    const target = { companyId: 3, debtId: 7 };
    expect(links.token(target, periodStart)).toBe(links.token(target, new Date(periodStart.getTime() + 89 * DAY_MS)));
    expect(links.token(target, periodStart)).not.toBe(links.token(target, new Date(periodStart.getTime() + 90 * DAY_MS)));
  });

  it("lives 90 to 180 days, then reads as expired", () => {
    const target = { companyId: 3, debtId: 7 };
    const token = links.token(target, now);
    const checked = links.check(token, now);
    if (checked.status !== "valid") throw new Error("expected valid");
    const lifetime = (checked.expiresAt.getTime() - now.getTime()) / DAY_MS;
    expect(lifetime).toBeGreaterThan(90);
    expect(lifetime).toBeLessThanOrEqual(180);
    expect(links.check(token, new Date(checked.expiresAt.getTime() - 1)).status).toBe("valid");
    expect(links.check(token, checked.expiresAt)).toEqual({ status: "expired" });
  });

  it("refuses any altered, truncated or foreign token", () => {
    const token = links.token({ companyId: 3, debtId: 7 }, now);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 47 }), fc.constantFrom(..."ABCabc019_-"), (position, character) => {
        fc.pre(token[position] !== character);
        const altered = token.slice(0, position) + character + token.slice(position + 1);
        expect(links.check(altered, now)).toEqual({ status: "invalid" });
      }),
    );
    expect(links.check(token.slice(0, 47), now)).toEqual({ status: "invalid" });
    const other = debtorLinks(new Uint8Array(Buffer.from("another secret of at least thirty-two bytes!")));
    expect(other.check(token, now)).toEqual({ status: "invalid" });
  });

  it("a debt's payment link is the company's own, or else its signed page on the signer's origin", () => {
    const signer = { origin: "https://app.example", secret };
    const target = { companyId: 3, debtId: 7 };
    expect(debtPaymentLink("https://pay.example/abc", signer, target, now)).toBe("https://pay.example/abc");
    const platform = `https://app.example/pay/${links.token(target, now)}`;
    expect(debtPaymentLink(null, signer, target, now)).toBe(platform);
    expect(debtPaymentLink("  ", signer, target, now)).toBe(platform);
  });
});
