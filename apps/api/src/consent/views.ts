/**
 * The authorization pages: sign-in, consent, and messages (errors, expired
 * forms, a signed-in user of another company). Pure functions from what the
 * page shows to HTML; every value is escaped.
 */
import { type Scope, scopeDescriptions } from "@dc/contract";
import { escape, hiddenFields, layout } from "./html.ts";

/** What every form of the flow carries: the authorization request and the anti-forgery token. */
export interface FormContext {
  readonly parameters: Readonly<Record<string, string>>;
  readonly csrfToken: string;
}

const FORM_ACTION = "/oauth/authorize";

const formStart = (form: FormContext) => `<form method="post" action="${FORM_ACTION}">
      ${hiddenFields({ ...form.parameters, csrf_token: form.csrfToken })}`;

const initial = (name: string) => escape((name.trim()[0] ?? "?").toUpperCase());

const appHeader = (clientName: string, meta: string) => `<div class="app">
    <div class="app-icon" aria-hidden="true">${initial(clientName)}</div>
    <div><div class="app-name">${escape(clientName)}</div><div class="app-meta">${meta}</div></div>
  </div>`;

const alert = (message: string | undefined) =>
  message === undefined
    ? ""
    : `<div class="alert" role="alert" id="form-error"><span aria-hidden="true">!</span><span>${escape(message)}</span></div>`;

const hostOf = (uri: string) => {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
};

export interface SignInPage {
  readonly clientName: string;
  readonly form: FormContext;
  readonly email?: string | undefined;
  readonly error?: string | undefined;
}

export const signInPage = (page: SignInPage): string => {
  const invalid = page.error === undefined ? "" : ' aria-invalid="true" aria-describedby="form-error"';
  return layout(
    "Sign in",
    `${appHeader(page.clientName, "wants to connect to your company account")}
    <h1>Sign in to continue</h1>
    <p class="lead">Sign in with your company account to review the access <strong>${escape(page.clientName)}</strong> is asking for.</p>
    ${alert(page.error)}
    ${formStart(page.form)}
      <label for="email">Work e-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" inputmode="email" spellcheck="false" maxlength="320" required autofocus value="${escape(page.email ?? "")}"${invalid}>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024" required${invalid}>
      <div class="stack">
        <button class="button primary" type="submit" name="action" value="sign_in">Sign in</button>
        <button class="button secondary" type="submit" name="action" value="deny" formnovalidate>Cancel and return to the application</button>
      </div>
    </form>
    <p class="note">Only users of the company that registered this application can authorize it.</p>`,
  );
};

export interface ConsentPage {
  readonly clientName: string;
  readonly companyName: string;
  readonly email: string;
  readonly scopes: ReadonlyArray<Scope>;
  readonly redirectUri: string;
  readonly form: FormContext;
}

export const consentPage = (page: ConsentPage): string => {
  const client = escape(page.clientName);
  const scopes = page.scopes
    .map(
      (scope) => `<li>
          <span class="check" aria-hidden="true">&#10003;</span>
          <span class="scope-text"><span>${escape(scopeDescriptions[scope])}</span><span class="scope-code">${escape(scope)}</span></span>
        </li>`,
    )
    .join("\n        ");
  return layout(
    `Authorize ${page.clientName}`,
    `${appHeader(page.clientName, `is requesting access to <strong>${escape(page.companyName)}</strong>`)}
    <h1>Allow ${client} to access your company's data?</h1>
    <div class="account">
      <span>Signed in as <strong>${escape(page.email)}</strong></span>
      ${formStart(page.form)}
        <button class="link-button" type="submit" name="action" value="sign_out">Use another account</button>
      </form>
    </div>
    ${formStart(page.form)}
      <h2 id="scopes-heading">${client} will be able to:</h2>
      <ul class="scopes" aria-labelledby="scopes-heading">
        ${scopes}
      </ul>
      <p class="note">Your choice is sent to <strong>${escape(hostOf(page.redirectUri))}</strong>. Access lasts until it is revoked, and at most 90 days.</p>
      <div class="actions">
        <button class="button secondary" type="submit" name="action" value="deny">Deny</button>
        <button class="button primary" type="submit" name="action" value="approve">Allow access</button>
      </div>
    </form>`,
  );
};

export interface MessagePage {
  readonly title: string;
  readonly message: string;
  /** The OAuth error code, shown for the integrator's benefit. */
  readonly errorCode?: string;
  /** A way on: a link back to the start of the flow. */
  readonly restartUrl?: string;
}

export const messagePage = (page: MessagePage): string =>
  layout(
    page.title,
    `<h1>${escape(page.title)}</h1>
    ${page.errorCode === undefined ? "" : `<div><span class="visually-hidden">Error code: </span><code class="error-code">${escape(page.errorCode)}</code></div>`}
    <p class="lead">${escape(page.message)}</p>
    ${page.restartUrl === undefined ? "" : `<div class="stack"><a class="button primary" href="${escape(page.restartUrl)}">Start again</a></div>`}`,
  );

export interface WrongAccountPage {
  readonly clientName: string;
  readonly email: string;
  readonly form: FormContext;
}

/** A signed-in user whose company does not own the client: they may only switch accounts. */
export const wrongAccountPage = (page: WrongAccountPage): string =>
  layout(
    "Use another account",
    `${appHeader(page.clientName, "belongs to another company")}
    <h1>This account can't authorize ${escape(page.clientName)}</h1>
    <p class="lead">You are signed in as <strong>${escape(page.email)}</strong>. Only users of the company that registered this application can authorize it.</p>
    ${formStart(page.form)}
      <div class="stack">
        <button class="button primary" type="submit" name="action" value="sign_out">Sign in with another account</button>
        <button class="button secondary" type="submit" name="action" value="deny">Cancel and return to the application</button>
      </div>
    </form>`,
  );
