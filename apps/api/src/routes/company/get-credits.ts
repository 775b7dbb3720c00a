/**
 * GET /company/credits: the credit balance and the subscription of the
 * token's company (`presentCompanyCredits`).
 */
import { companyMessages, type Endpoints, messages } from "@dc/contract";
import { findCompanyCredits } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentCompanyCredits } from "../../presenters/present-company.ts";

export const getCompanyCredits: HandlerOf<Endpoints["getCompanyCredits"]> = async ({ principal, services }) => {
  const company = await findCompanyCredits(services.db, principal.companyId);
  if (company === undefined) throw new NotFound({ message: messages.companyNotFound });
  return {
    body: {
      error: false,
      message: companyMessages.credits,
      data: presentCompanyCredits(company, services.clock.now()),
    },
  };
};
