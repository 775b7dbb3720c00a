/** GET /company/credits: the credit balance and the subscription of the token's company. */
import { companyMessages, type Endpoints, messages } from "@dc/contract";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const getCompanyCredits: HandlerOf<Endpoints["getCompanyCredits"]> = async ({ principal, services }) => {
  const company = await services.db
    .selectFrom("companies")
    .select(["current_credits", "subscription_plan", "subscription_status", "subscription_expires_at"])
    .where("id", "=", principal.companyId)
    .executeTakeFirst();
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
          expires_at: company.subscription_expires_at,
        },
      },
    },
  };
};
