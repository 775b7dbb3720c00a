/** The OAuth failures the grants share, so each reads as one line where it is raised. */
import { OAuthFailure } from "../http/api-error.ts";

export const invalidRequest = (description: string) =>
  new OAuthFailure({ error: "invalid_request", description, status: 400 });

export const invalidGrant = (description: string) =>
  new OAuthFailure({ error: "invalid_grant", description, status: 400 });

export const invalidScope = (description: string) =>
  new OAuthFailure({ error: "invalid_scope", description, status: 400 });
