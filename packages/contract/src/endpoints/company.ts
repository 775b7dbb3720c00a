/** Company resources (contract 2.5 and 4.7). */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { DataEnvelope } from "../envelopes.ts";
import { errorCases, messages, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";

export const CompanyProfile = Schema.Struct({
  id: EncryptedId("company"),
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  created_at: IsoOffsetDateTime,
}).annotations({ identifier: "CompanyProfile" });

export const getCompanyProfile = endpoint({
  operationId: "getCompanyProfile",
  method: "get",
  path: `${API_PREFIX}/company/profile`,
  scope: "company:read",
  tags: ["Company"],
  summary: "Read the company profile",
  description: "The profile of the company that owns the access token.",
  success: {
    status: 200,
    description: "The company profile",
    schema: DataEnvelope(CompanyProfile).annotations({ identifier: "CompanyProfileResponse" }),
  },
  errors: [...protectedErrors("company:read"), errorCases.notFound(messages.companyNotFound)],
  rateLimit: "read",
});

export const companyMessages = {
  statistics: "Company statistics retrieved successfully",
  credits: "Company credits retrieved successfully",
} as const;

const Total = Schema.Struct({ total: Schema.Int.annotations({ description: "All-time count" }) });

export const CompanyStatistics = Schema.Struct({
  debts: Total,
  followups: Total,
}).annotations({ identifier: "CompanyStatistics" });

export const getCompanyStatistics = endpoint({
  operationId: "getCompanyStatistics",
  method: "get",
  path: `${API_PREFIX}/company/statistics`,
  scope: "company:read",
  tags: ["Company"],
  summary: "Read the company statistics",
  description: "All-time counts of the company's debts and followups. Takes no query parameters.",
  success: {
    status: 200,
    description: "The company statistics",
    schema: DataEnvelope(CompanyStatistics).annotations({ identifier: "CompanyStatisticsResponse" }),
  },
  errors: [...protectedErrors("company:read"), errorCases.notFound(messages.companyNotFound)],
  rateLimit: "read",
});

export const CompanyCredits = Schema.Struct({
  current_credits: Schema.Int.annotations({
    description: "Credit balance; negative when executed activity consumed more than the balance",
  }),
  subscription: Schema.Struct({
    plan: Schema.String,
    status: Schema.String,
    expires_at: IsoOffsetDateTime.annotations({
      description:
        "End of the current subscription period: the end set for the company, or else the next monthly anniversary " +
        "of its creation, when the plan renews",
    }),
  }),
}).annotations({ identifier: "CompanyCredits" });

export const getCompanyCredits = endpoint({
  operationId: "getCompanyCredits",
  method: "get",
  path: `${API_PREFIX}/company/credits`,
  scope: "company:read",
  tags: ["Company"],
  summary: "Read the credit balance",
  description:
    "The company's current credits and subscription. Calls cost 1 to 5 credits by duration, SMS 1 per message, " +
    "WhatsApp 1 to 2 per message, e-mail nothing. A new company is on the `starter` plan, `active`, renewed monthly " +
    "on the anniversary of its creation.",
  success: {
    status: 200,
    description: "The credit balance and subscription",
    schema: DataEnvelope(CompanyCredits).annotations({ identifier: "CompanyCreditsResponse" }),
  },
  errors: [...protectedErrors("company:read"), errorCases.notFound(messages.companyNotFound)],
  rateLimit: "read",
});
