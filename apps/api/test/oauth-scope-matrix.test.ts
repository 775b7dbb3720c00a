/**
 * Scope enforcement for every bearer-protected operation of the contract,
 * found by walking `endpoints` (operations added later are covered without
 * touching this file): no token, or an unknown one, gets exactly the
 * contract's 401 with its challenge; a token with every scope but the
 * required one gets exactly the contract's 403, with the challenge naming the
 * scope; a token with only that scope gets past authorization (dummy path
 * parameters may well make it a 400 or 404). Bodies are read through the
 * OpenAPI document.
 */
import { allScopes, messages, type Scope } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { type ProtectedOperation, protectedOperations, sendWithDummies } from "./support/protected-operations.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");

const tokens = new Map<string, Promise<string>>();
const tokenFor = (scopes: ReadonlyArray<Scope>) => {
  const key = scopes.join(" ");
  if (!tokens.has(key)) tokens.set(key, t.token(acme, key));
  return tokens.get(key)!;
};

const call = (operation: ProtectedOperation, token: string | undefined) => sendWithDummies(t.api.url, operation, token);

describe("scope matrix", () => {
  it("covers the contract's protected operations", () => {
    expect(protectedOperations.map((operation) => operation.operationId)).toContain("getCompanyProfile");
  });

  describe.each(protectedOperations)("$method $path ($scope)", (operation) => {
    it.each([
      ["no token", undefined, 'Bearer realm="external-api"'],
      ["an unknown token", "dca_not-a-token-of-ours", 'Bearer realm="external-api", error="invalid_token"'],
    ])("refuses %s with exactly the contract's 401 and its challenge", async (_case, token, challenge) => {
      const response = await call(operation, token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(challenge);
      expect(await expectContract(response, operation.method, operation.path)).toEqual({
        error: true,
        message: messages.unauthorized,
        code: 401,
      });
    });

    it("refuses a token lacking the scope with exactly the contract's 403", async () => {
      const response = await call(operation, await tokenFor(allScopes.filter((scope) => scope !== operation.scope)));
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer realm="external-api", error="insufficient_scope", scope="${operation.scope}"`,
      );
      expect(await expectContract(response, operation.method, operation.path)).toEqual({
        error: true,
        message: messages.missingScope(operation.scope),
        code: 403,
      });
      expect(messages.missingScope(operation.scope)).toBe(`Required scope "${operation.scope}" not found in token`);
    });

    it("lets a token holding only that scope past authorization", async () => {
      const response = await call(operation, await tokenFor([operation.scope]));
      expect([401, 403], `${operation.method} ${operation.path} answered ${response.status}`).not.toContain(
        response.status,
      );
    });
  });
});
