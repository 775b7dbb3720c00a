/** Company users (contract 2.5: scope `users:read`, fields not shown; docs/decisions/0155). */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { ListEnvelope } from "../envelopes.ts";
import { errorCases, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery } from "../pagination.ts";

/** A user of the company, without any credential. */
export const CompanyUser = Schema.Struct({
  id: EncryptedId("user"),
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Schema.Literal("admin", "member"),
  created_at: IsoOffsetDateTime,
  disabled_at: Schema.NullOr(IsoOffsetDateTime).annotations({ description: "Set when the user may no longer sign in" }),
}).annotations({ identifier: "CompanyUser" });

export const listCompanyUsers = endpoint({
  operationId: "listCompanyUsers",
  method: "get",
  path: `${API_PREFIX}/company/users`,
  scope: "users:read",
  tags: ["Company"],
  summary: "List the company's users",
  description: "The users of the token's company, oldest first, disabled users included.",
  query: PaginationQuery,
  success: {
    status: 200,
    description: "A page of users",
    schema: ListEnvelope(CompanyUser).annotations({ identifier: "CompanyUserList" }),
  },
  errors: [...protectedErrors("users:read"), errorCases.validation],
  rateLimit: "read",
});
