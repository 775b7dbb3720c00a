/** Every operation's handler, keyed by the contract's operationId. */
import type { Handlers } from "../http/handler.ts";
import { getCompanyProfile } from "./company/get-profile.ts";
import { issueToken } from "./oauth/issue-token.ts";

export const handlers: Handlers = {
  issueToken,
  issueTokenAlias: issueToken,
  getCompanyProfile,
};
