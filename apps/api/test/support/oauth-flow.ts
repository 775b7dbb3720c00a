/**
 * Drives the authorization pages over plain HTTP, the way a browser would:
 * keeps the sign-in cookie, reads each form's anti-forgery token, follows
 * nothing automatically (every status and Location is the test's to check).
 * The real-browser test lives in oauth-consent-browser.test.ts.
 */
import type { Scope } from "@dc/contract";
import { createClient } from "../../src/admin/oauth-clients.ts";
import type { CreatedTenant } from "../../src/admin/tenants.ts";
import type { startTestApi } from "./harness.ts";

type TestApi = Awaited<ReturnType<typeof startTestApi>>;

/** A cookie-keeping, non-redirecting HTTP agent. */
export const formAgent = (t: TestApi) => {
  const cookies = new Map<string, string>();
  /** `path` is relative to the test server, or an absolute URL (an endpoint read from the metadata). */
  const send = async (path: string, init: RequestInit = {}) => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const url = /^https?:\/\//.test(path) ? path : `${t.api.url}${path}`;
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie === "" ? {} : { cookie }) },
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const separator = pair!.indexOf("=");
      cookies.set(pair!.slice(0, separator), pair!.slice(separator + 1));
    }
    return response;
  };
  return {
    cookies,
    get: (path: string) => send(path),
    post: (path: string, form: Record<string, string>) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }),
  };
};

/** The anti-forgery token of the first form of a page. */
export const csrfTokenOf = (html: string): string => {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error(`no csrf_token in page: ${html.slice(0, 300)}`);
  return match[1];
};

/** A client of the tenant's company with the given redirect URIs (the tenant's own has only localhost:8080). */
export const registerClient = async (
  t: TestApi,
  tenant: CreatedTenant,
  options: {
    readonly redirectUris: ReadonlyArray<string>;
    readonly scopes?: ReadonlyArray<Scope>;
    readonly name?: string;
  },
) => {
  const companyId = t.api.services.ids.decode("company", tenant.company_id);
  if (companyId === undefined) throw new Error("tenant company id does not decode");
  return createClient(t.db, {
    companyId,
    name: options.name ?? "Ledger Sync",
    scopes: options.scopes ?? ["debts:read", "company:read", "followups:read"],
    redirectUris: options.redirectUris,
  });
};

export const authorizePath = (parameters: Record<string, string>, endpoint = "/oauth/authorize") =>
  `${endpoint}?${new URLSearchParams(parameters).toString()}`;

/**
 * Signs in and approves (or denies) an authorization request; returns the
 * Location the browser is finally sent to (the client's redirect URI).
 * `endpoint` is the authorization endpoint, as a path of the test server or
 * an absolute URL.
 */
export const authorizeWithPassword = async (
  t: TestApi,
  parameters: Record<string, string>,
  user: { readonly email: string; readonly password: string },
  decision: "approve" | "deny" = "approve",
  endpoint = "/oauth/authorize",
): Promise<URL> => {
  const agent = formAgent(t);
  const signInPage = await agent.get(authorizePath(parameters, endpoint));
  if (signInPage.status !== 200) throw new Error(`sign-in page: ${signInPage.status} ${await signInPage.text()}`);
  const signedIn = await agent.post(endpoint, {
    ...parameters,
    csrf_token: csrfTokenOf(await signInPage.text()),
    action: "sign_in",
    email: user.email,
    password: user.password,
  });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status} ${await signedIn.text()}`);
  const consent = await agent.get(signedIn.headers.get("location")!);
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${await consent.text()}`);
  const decided = await agent.post(endpoint, {
    ...parameters,
    csrf_token: csrfTokenOf(await consent.text()),
    action: decision,
  });
  if (decided.status !== 303) throw new Error(`decision: ${decided.status} ${await decided.text()}`);
  return new URL(decided.headers.get("location")!);
};

/** Runs the whole flow and returns a fresh authorization code. */
export const authorizationCode = async (
  t: TestApi,
  tenant: CreatedTenant,
  client: { readonly client_id: string },
  redirectUri: string,
  extra: Record<string, string> = {},
): Promise<string> => {
  const location = await authorizeWithPassword(
    t,
    { response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state: "s-1", ...extra },
    { email: tenant.user_email, password: tenant.user_password },
  );
  const code = location.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location.href}`);
  return code;
};
