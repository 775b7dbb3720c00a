/**
 * GET /company/credits: the credit balance and the subscription of the
 * token's company. A subscription without a stored end renews monthly from the
 * company's creation; its `expires_at` is the end of the current period
 * (docs/decisions/0581).
 */
import { companyMessages, type Endpoints, messages } from "@dc/contract";
import { findCompanyCredits } from "@dc/db";
import { Subscription } from "@dc/domain";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const getCompanyCredits: HandlerOf<Endpoints["getCompanyCredits"]> = async ({ principal, services }) => {
  const company = await findCompanyCredits(services.db, principal.companyId);
  if (company === undefined) throw new NotFound({ message: messages.companyNotFound });
  return {
    body: {
      error: false,
      message: companyMessages.credits,
      data: {
        current_credits: company.current_credits,
        subscription: {
          plan: company.subscription_plan,
          status: company.subscription_status,
          expires_at:
            company.subscription_expires_at ?? Subscription.periodEnd(company.created_at, services.clock.now()),
        },
      },
    },
  };
};
