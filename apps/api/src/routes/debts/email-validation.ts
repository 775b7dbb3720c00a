/**
 * The `validate_emails` check (docs/decisions/0105): syntax and domain shape
 * only, no DNS or SMTP, so it is instant, deterministic and never charged.
 * Reserved names (RFC 2606 / RFC 6761) and well-known disposable-mailbox
 * domains are invalid; anything else well-formed is valid. A pure rule kept
 * here until the domain package grows one.
 */
import type { EmailValidation } from "@dc/contract";
import { Contact } from "@dc/domain";

/** Top-level domains that can never receive mail (RFC 2606, RFC 6761, RFC 6762). */
const reservedTlds = new Set(["test", "example", "invalid", "localhost", "local", "onion"]);
/** Second-level names reserved for documentation (RFC 2606). */
const reservedDomains = new Set(["example.com", "example.net", "example.org"]);
/** A few well-known disposable-mailbox providers; their subdomains count too. */
const disposableDomains = new Set([
  "mailinator.com",
  "guerrillamail.com",
  "10minutemail.com",
  "yopmail.com",
  "temp-mail.org",
  "trashmail.com",
  "sharklasers.com",
  "getnada.com",
  "dispostable.com",
  "maildrop.cc",
]);

const withParents = (domain: string): string[] => {
  const labels = domain.split(".");
  return labels.map((_, index) => labels.slice(index).join("."));
};

/** Validates `email` when `requested`; otherwise reports `not_requested`. */
export const validateEmail = (email: string | null, requested: boolean): EmailValidation => {
  const report = (status: EmailValidation["status"], reason: string): EmailValidation => ({
    status,
    reason,
    charged: false,
    email,
  });
  if (!requested) return report("unverifiable", "not_requested");
  if (email === null) return report("unverifiable", "no_email");
  if (!Contact.isEmail(email)) return report("invalid", "invalid_syntax");
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  const candidates = withParents(domain);
  const tld = candidates.at(-1) ?? "";
  if (reservedTlds.has(tld) || candidates.some((candidate) => reservedDomains.has(candidate))) {
    return report("invalid", "reserved_domain");
  }
  if (!/^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)) return report("invalid", "invalid_domain");
  if (candidates.some((candidate) => disposableDomains.has(candidate))) return report("invalid", "disposable_domain");
  return report("valid", "valid_syntax_and_domain");
};
