/**
 * The authorization server's metadata (RFC 8414; docs/decisions/0207). Every
 * value is read from the code that enforces it: the paths from the
 * contract's declarations, the scopes from the contract's one list, the
 * grants from the token endpoint's dispatch table, the client authentication
 * methods, PKCE methods and response types from the modules that check them.
 */
import { type AuthorizationServerMetadata, allScopes, endpoints, pages } from "@dc/contract";
import { DOCS_PATH } from "../docs/mount.ts";
import { responseModes, responseTypes } from "./authorization-request.ts";
import { clientAuthenticationMethods } from "./client-authentication.ts";
import { codeChallengeMethods } from "./pkce.ts";
import { grantTypes } from "./token-grants.ts";

export const authorizationServerMetadata = (issuer: string): typeof AuthorizationServerMetadata.Type => {
  const authMethods = Object.values(clientAuthenticationMethods);
  return {
    issuer,
    authorization_endpoint: `${issuer}${pages.authorize.path}`,
    token_endpoint: `${issuer}${endpoints.issueToken.path}`,
    revocation_endpoint: `${issuer}${endpoints.revokeToken.path}`,
    scopes_supported: allScopes,
    response_types_supported: responseTypes,
    response_modes_supported: responseModes,
    grant_types_supported: grantTypes,
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    code_challenge_methods_supported: codeChallengeMethods,
    service_documentation: `${issuer}${DOCS_PATH}`,
    authorization_response_iss_parameter_supported: true,
  };
};
