/** GET /company/profile: the profile of the token's company. */
import type { CompanyProfile } from "@dc/contract";
import { messages } from "@dc/contract";
import { findCompanyProfile } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { presentCompanyProfile } from "../../presenters/present-company.ts";

export const getCompanyProfile = async ({
  principal,
  services,
}: HandlerInput<unknown, unknown, unknown, true>): Promise<
  Reply<{ error: false; message: string; data: typeof CompanyProfile.Type }>
> => {
  const company = await findCompanyProfile(services.db, principal.companyId);
  if (company === undefined) throw new NotFound({ message: messages.companyNotFound });
  return {
    body: {
      error: false,
      message: "Company profile retrieved successfully",
      data: presentCompanyProfile(services.ids, company),
    },
  };
};
