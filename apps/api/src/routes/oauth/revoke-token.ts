/** POST /oauth/revoke (RFC 7009): the client revokes one of its own tokens; the answer is the same either way. */
import type { RevocationRequest, RevocationResponse } from "@dc/contract";
import { authorizationHeader } from "../../auth/authorization-header.ts";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { authenticateClientRequest } from "../../oauth/client-authentication.ts";
import { invalidRequest } from "../../oauth/oauth-errors.ts";
import { revokeClientToken } from "../../oauth/revocation.ts";

export const revokeToken = async (
  input: HandlerInput<unknown, unknown, typeof RevocationRequest.Type, false>,
): Promise<Reply<typeof RevocationResponse.Type>> => {
  const { services, ctx, body } = input;
  const client = await authenticateClientRequest(services, {
    authorization: authorizationHeader(ctx.req),
    address: ctx.ip,
    fields: body,
  });
  if (body.token === undefined) throw invalidRequest("Missing token");
  await revokeClientToken(services, client, body.token);
  return { body: {}, headers: { Pragma: "no-cache" } };
};
