/** GET /.well-known/oauth-authorization-server (RFC 8414 3): this server's metadata, for OAuth client libraries. */
import { type AuthorizationServerMetadata, METADATA_MAX_AGE_SECONDS } from "@dc/contract";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { issuerOf } from "../../oauth/issuer.ts";
import { authorizationServerMetadata } from "../../oauth/metadata.ts";

export const getAuthorizationServerMetadata = ({
  services,
  ctx,
}: HandlerInput<unknown, unknown, unknown, false>): Promise<Reply<typeof AuthorizationServerMetadata.Type>> =>
  Promise.resolve({
    body: authorizationServerMetadata(issuerOf(services, ctx)),
    // Without PUBLIC_BASE_URL (development) the issuer is the host the request named: a shared cache
    // keeping the document for an hour would hand it to requests that name another host.
    headers: {
      "Cache-Control":
        services.config.publicBaseUrl === undefined ? "no-store" : `public, max-age=${METADATA_MAX_AGE_SECONDS}`,
    },
  });
