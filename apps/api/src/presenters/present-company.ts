/**
 * The company's wire forms: its profile, and its credits with the
 * subscription. A subscription without a stored end renews monthly from the
 * company's creation; its `expires_at` is the end of the current period
 * (docs/decisions/0581).
 */
import type { CompanyProfile, Endpoints } from "@dc/contract";
import type { DomainIds as Ids, findCompanyCredits, findCompanyProfile } from "@dc/db";
import { Subscription } from "@dc/domain";

export type CompanyCreditsView = Endpoints["getCompanyCredits"]["success"]["schema"]["Type"]["data"];
type ProfileRow = NonNullable<Awaited<ReturnType<typeof findCompanyProfile>>>;
type CreditsRow = NonNullable<Awaited<ReturnType<typeof findCompanyCredits>>>;

export const presentCompanyProfile = (ids: Ids, row: ProfileRow): typeof CompanyProfile.Type => ({
  id: ids.encode("company", row.id),
  name: row.name,
  email: row.email,
  phone: row.phone,
  created_at: row.created_at,
});

export const presentCompanyCredits = (row: CreditsRow, now: Date): CompanyCreditsView => ({
  current_credits: row.current_credits,
  subscription: {
    plan: row.subscription_plan,
    status: row.subscription_status,
    expires_at: row.subscription_expires_at ?? Subscription.periodEnd(row.created_at, now),
  },
});
