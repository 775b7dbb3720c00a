/**
 * Password sign-in of company users on the authorization pages, throttled per
 * account and per source address (docs/decisions/0203). Unlike client
 * secrets, passwords are guessable: an exhausted account or address is
 * refused before the password is even checked, so guessing stops there, and
 * each attempt is counted before its check, so parallel guesses stop there too.
 */
import { randomBytes } from "node:crypto";
import { findUserByEmail } from "@dc/db";
import * as JsonText from "@dc/json-text";
import {
  exhaustedSubject,
  failureRules,
  type FailureSubject,
  overLimit,
  reserveAttempt,
  subjectKey,
} from "../oauth/failure-throttle.ts";
import { hashPassword, verifyPassword } from "../oauth/secrets.ts";
import type { AppServices } from "../services.ts";

export type SignInResult =
  | {
      readonly kind: "signed-in";
      readonly user: { readonly id: number; readonly companyId: number; readonly email: string };
    }
  | { readonly kind: "incomplete" }
  | { readonly kind: "failed" }
  | { readonly kind: "throttled"; readonly retryAfterSeconds: number };

let dummyHash: Promise<string> | undefined;
/** A hash to verify against when the account does not exist, so both paths cost the same scrypt. */
const unknownUserHash = (): Promise<string> => (dummyHash ??= hashPassword(randomBytes(16).toString("base64url")));

export const signIn = async (
  services: AppServices,
  attempt: { readonly email: string | undefined; readonly password: string | undefined; readonly address: string },
): Promise<SignInResult> => {
  const email = (attempt.email ?? "").trim().toLowerCase();
  const password = attempt.password ?? "";
  if (email === "" || password === "") return { kind: "incomplete" };

  const subjects: ReadonlyArray<FailureSubject> = [
    { rule: failureRules.signInPerAccount, subject: subjectKey(email, true) },
    { rule: failureRules.signInPerAddress, subject: subjectKey(attempt.address) },
  ];
  const exhausted = await exhaustedSubject(services, subjects);
  if (exhausted !== undefined) return { kind: "throttled", retryAfterSeconds: exhausted.retryAfterSeconds };
  // Counted before the password is checked: guesses sent at once get no more checks than guesses sent in turn.
  const reserved = await reserveAttempt(services, subjects);
  const refusal = overLimit(reserved.counts);
  if (refusal !== undefined) {
    await reserved.release();
    return { kind: "throttled", retryAfterSeconds: refusal };
  }

  const user =
    email.length > 320 || password.length > 1024 || !JsonText.isStorable(email)
      ? undefined
      : await findUserByEmail(services.db, email);
  const matches = await verifyPassword(password, user?.password_hash ?? (await unknownUserHash()));
  // A failure stays counted (the reservation); a success gives its place back.
  if (user === undefined || !matches || user.disabled_at !== null) return { kind: "failed" };
  await reserved.release();
  return { kind: "signed-in", user: { id: user.id, companyId: user.company_id, email: user.email } };
};
