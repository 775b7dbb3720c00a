/**
 * Debtor contact data: name bounds, the e-mail and E.164 phone syntax accepted in rows and
 * debts, and costly phone destinations (premium-rate and satellite numbers)
 * that a campaign only calls or texts when its configuration allows it.
 */
import { Schema } from "effect";

/** Longest debtor first or last name. */
export const maxNameLength = 255;

/** Schema of a debtor first or last name (may be empty). */
export const Name = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.maxLength(maxNameLength, { message: () => `must be at most ${maxNameLength} characters` }),
);

/** Longest accepted e-mail address (RFC 5321 path limits). */
export const maxEmailLength = 320;

/** Practical e-mail syntax (the HTML living standard's, with a dotted domain). */
export const emailPattern =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** E.164: `+`, a non-zero country digit, 7 to 15 digits in all. */
export const phonePattern = /^\+[1-9]\d{6,14}$/;

/** Tells whether `text` is an acceptable e-mail address. */
export const isEmail = (text: string): boolean => text.length <= maxEmailLength && emailPattern.test(text);

/** Tells whether `text` is an E.164 phone number. */
export const isE164 = (text: string): boolean => phonePattern.test(text);

/** Schema of a debtor e-mail address. */
export const Email = Schema.String.annotations({ message: () => "must be a string" })
  .pipe(
    Schema.maxLength(maxEmailLength, { message: () => `must be at most ${maxEmailLength} characters` }),
    Schema.pattern(emailPattern, { message: () => "must be a valid e-mail address" }),
  )
  .annotations({ identifier: "Email" });

/** Schema of an E.164 phone number. */
export const Phone = Schema.String.annotations({ message: () => "must be a string" })
  .pipe(Schema.pattern(phonePattern, { message: () => "must be an E.164 phone number such as +33612345678" }))
  .annotations({ identifier: "PhoneE164" });

/**
 * E.164 prefixes of costly destinations: satellite and international
 * networks (+881, +882, +883, +870) and national premium-rate ranges
 * (+1 900, +44 9, +33 89).
 */
export const costlyDestinationPrefixes: ReadonlyArray<string> = [
  "+881",
  "+882",
  "+883",
  "+870",
  "+1900",
  "+449",
  "+3389",
];

/** Tells whether an E.164 number is a costly destination. */
export const isCostlyDestination = (phone: string): boolean =>
  costlyDestinationPrefixes.some((prefix) => phone.startsWith(prefix));
