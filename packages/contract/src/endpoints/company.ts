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
