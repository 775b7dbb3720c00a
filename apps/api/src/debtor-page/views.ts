/**
 * The debtor page's HTML (docs/decisions/0671): server-rendered, no script,
 * one inline stylesheet allowed by its hash, every value escaped, labelled
 * form fields, readable from 320 px up.
 */
import { createHash } from "node:crypto";
import { escape } from "../consent/html.ts";
import { Channel, type DebtorLanguage, DisputeAttachment } from "@dc/domain";
import type { Texts } from "./texts.ts";

const stylesheet = `
:root { color-scheme: light; --ink: #111827; --muted: #4b5563; --line: #d1d5db; --brand: #1d4ed8; --ok: #065f46; --ok-bg: #d1fae5; --bad: #991b1b; --bad-bg: #fee2e2; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f3f4f6; }
header, main, footer { max-width: 44rem; margin: 0 auto; padding: 1rem; }
header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
header p { margin: 0; font-weight: 600; }
a { color: var(--brand); }
section { background: #fff; border: 1px solid var(--line); border-radius: .5rem; padding: 1rem; margin-bottom: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; } h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
dl { display: grid; grid-template-columns: minmax(7rem, auto) 1fr; gap: .25rem 1rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
table { width: 100%; border-collapse: collapse; } th, td { text-align: left; padding: .4rem .25rem; border-bottom: 1px solid var(--line); }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input, select, textarea { width: 100%; font: inherit; padding: .6rem; border: 1px solid #6b7280; border-radius: .375rem; background: #fff; color: var(--ink); }
input[type=checkbox] { width: auto; margin-right: .5rem; }
fieldset { border: 0; padding: 0; margin: .75rem 0 0; } legend { font-weight: 600; padding: 0; }
.check { display: flex; align-items: center; font-weight: 400; margin: .25rem 0; }
.row { display: flex; gap: 1rem; } .row > div { flex: 1; }
button { margin-top: 1rem; font: inherit; font-weight: 600; color: #fff; background: var(--brand); border: 0; border-radius: .375rem; padding: .7rem 1.2rem; min-height: 2.75rem; cursor: pointer; }
button.secondary { background: #374151; }
input:focus, select:focus, textarea:focus, button:focus, a:focus { outline: 3px solid #f59e0b; outline-offset: 2px; }
.notice { padding: .75rem 1rem; border-radius: .375rem; margin-bottom: 1rem; background: var(--ok-bg); color: var(--ok); }
.error { background: var(--bad-bg); color: var(--bad); }
.hint { color: var(--muted); font-size: .95rem; margin: .25rem 0 0; }
.hint.field-error { color: var(--bad); font-weight: 600; }
input[type=file] { padding: .4rem; }
.big { font-size: 1.6rem; }
footer { color: var(--muted); font-size: .9rem; }
`;

const attachmentMegabytes = DisputeAttachment.maxBytes / (1024 * 1024);

/** The CSP source of the stylesheet. */
export const stylesheetHash = `'sha256-${createHash("sha256").update(stylesheet).digest("base64")}'`;

export interface Shell {
  readonly language: DebtorLanguage.Language;
  readonly texts: Texts;
  /** The page's own path, for the language switch. */
  readonly path: string;
  readonly companyName: string | null;
}

const layout = (shell: Shell, title: string, content: string): string => `<!doctype html>
<html lang="${shell.language}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta name="robots" content="noindex, nofollow">
  <title>${escape(title)}</title>
  <style>${stylesheet}</style>
</head>
<body>
  <header>
    <p>${escape(shell.companyName ?? shell.texts.htmlTitle)}</p>
    <a href="${escape(`${shell.path}?lang=${shell.texts.switchLang}`)}" lang="${shell.texts.switchLang}" hreflang="${shell.texts.switchLang}">${escape(shell.texts.switchTo)}</a>
  </header>
  <main>
${content}
  </main>
  <footer>${escape(shell.texts.footer)}</footer>
</body>
</html>
`;

const notice = (text: string | undefined, error = false) =>
  text === undefined ? "" : `<div class="notice${error ? " error" : ""}" role="${error ? "alert" : "status"}">${escape(text)}</div>`;

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;

/** A message only (a bad or expired link). */
export const messagePage = (shell: Shell, message: string): string =>
  layout(shell, shell.texts.htmlTitle, `<section><h1>${escape(shell.texts.htmlTitle)}</h1>${notice(message, true)}</section>`);

export interface VerifyView {
  readonly csrf: string;
  readonly second: "postal_code" | "birthdate" | null;
  readonly error?: string;
}

export const verifyPage = (shell: Shell, view: VerifyView): string => {
  const t = shell.texts;
  const second =
    view.second === null
      ? ""
      : `<label for="second">${escape(t[view.second])}</label>
      <input id="second" name="second" required ${view.second === "birthdate" ? 'type="date" autocomplete="bday"' : 'autocomplete="postal-code"'}>`;
  return layout(
    shell,
    t.verifyTitle,
    `<section>
    <h1>${escape(t.verifyTitle)}</h1>
    ${notice(view.error, true)}
    <p>${escape(t.verifyIntro)}</p>
    <form method="post" action="${escape(shell.path)}">
      ${hidden("csrf_token", view.csrf)}${hidden("action", "verify")}${hidden("lang", shell.language)}
      <label for="name">${escape(t.lastname)}</label>
      <input id="name" name="name" required autocomplete="family-name">
      ${second}
      <button type="submit">${escape(t.continue)}</button>
    </form>
  </section>`,
  );
};

export interface DebtView {
  readonly csrf: string;
  readonly creditor: string;
  readonly object: string | null;
  readonly reference: string | null;
  readonly balance: string;
  readonly original: string;
  readonly dueDate: string | null;
  readonly paid: boolean;
  readonly installments: ReadonlyArray<{ readonly date: string; readonly amount: string; readonly status: string }>;
  readonly payments: ReadonlyArray<{ readonly date: string; readonly amount: string }>;
  /** Null when online payment is not possible. */
  readonly pay: { readonly min: string; readonly max: string; readonly defaultAmount: string; readonly step: string } | null;
  readonly plan: { readonly max: number; readonly min: string; readonly days: number; readonly firstDate: string } | null;
  readonly openRequests: ReadonlyArray<string>;
  readonly refused: ReadonlyArray<string>;
  readonly quiet: { readonly start: string; readonly end: string } | null;
  readonly notice?: string;
  readonly error?: string;
  /** The dispute as it was sent, when its attachment was refused: filled in again, the error beside the file. */
  readonly dispute?: { readonly reason: string | undefined; readonly message: string | undefined; readonly error: string };
}

const form = (shell: Shell, csrf: string, action: string, body: string, button: string, secondary = false, multipart = false) =>
  `<form method="post" action="${escape(shell.path)}"${multipart ? ' enctype="multipart/form-data"' : ""}>
      ${hidden("csrf_token", csrf)}${hidden("action", action)}${hidden("lang", shell.language)}
      ${body}
      <button type="submit"${secondary ? ' class="secondary"' : ""}>${escape(button)}</button>
    </form>`;

export const debtPage = (shell: Shell, view: DebtView): string => {
  const t = shell.texts;
  const detail = (label: string, value: string | null) =>
    value === null ? "" : `<dt>${escape(label)}</dt><dd>${escape(value)}</dd>`;
  const installments =
    view.installments.length === 0
      ? ""
      : `<section aria-labelledby="plan-title"><h2 id="plan-title">${escape(t.plan)}</h2>
    <table><thead><tr><th scope="col">${escape(t.date)}</th><th scope="col">${escape(t.amount)}</th><th scope="col">${escape(t.status)}</th></tr></thead>
    <tbody>${view.installments.map((i) => `<tr><td>${escape(i.date)}</td><td>${escape(i.amount)}</td><td>${escape(t.installmentStatus[i.status] ?? i.status)}</td></tr>`).join("")}</tbody></table></section>`;
  const payments = `<section aria-labelledby="payments-title"><h2 id="payments-title">${escape(t.payments)}</h2>${
    view.payments.length === 0
      ? `<p>${escape(t.noPayments)}</p>`
      : `<table><thead><tr><th scope="col">${escape(t.date)}</th><th scope="col">${escape(t.amount)}</th></tr></thead><tbody>${view.payments
          .map((p) => `<tr><td>${escape(p.date)}</td><td>${escape(p.amount)}</td></tr>`)
          .join("")}</tbody></table>`
  }</section>`;
  const pay = view.paid
    ? ""
    : `<section aria-labelledby="pay-title"><h2 id="pay-title">${escape(t.payTitle)}</h2>${
        view.pay === null
          ? `<p>${escape(t.payUnavailable)}</p>`
          : form(
              shell,
              view.csrf,
              "pay",
              `<label for="amount">${escape(t.payAmount)}</label>
      <input id="amount" name="amount" type="number" inputmode="decimal" required min="${escape(view.pay.min)}" max="${escape(view.pay.max)}" step="${escape(view.pay.step)}" value="${escape(view.pay.defaultAmount)}" aria-describedby="amount-hint">
      <p class="hint" id="amount-hint">${escape(t.payHint(view.pay.min, view.pay.max))}</p>`,
              t.payButton,
            )
      }</section>`;
  const open =
    view.openRequests.length === 0
      ? ""
      : notice(`${t.pending} ${view.openRequests.map((type) => t.requestTypes[type] ?? type).join(", ")}`);
  const plan =
    view.paid || view.plan === null
      ? ""
      : `<section aria-labelledby="plan-form-title"><h2 id="plan-form-title">${escape(t.planTitle)}</h2><p>${escape(t.planIntro(view.plan.max, view.plan.min, view.plan.days))}</p>${form(
          shell,
          view.csrf,
          "plan",
          `<div class="row"><div><label for="count">${escape(t.planCount)}</label>
      <input id="count" name="count" type="number" required min="1" max="${view.plan.max}" value="${Math.min(3, view.plan.max)}"></div>
      <div><label for="first_date">${escape(t.planFirst)}</label>
      <input id="first_date" name="first_date" type="date" required min="${escape(view.plan.firstDate)}" value="${escape(view.plan.firstDate)}"></div></div>`,
          t.planButton,
        )}</section>`;
  const dispute = view.paid
    ? ""
    : `<section aria-labelledby="dispute-title"><h2 id="dispute-title">${escape(t.disputeTitle)}</h2>${form(
        shell,
        view.csrf,
        "dispute",
        `<label for="reason">${escape(t.disputeReason)}</label>
      <select id="reason" name="reason" required>${Object.entries(t.reasons)
        .map(([code, label]) => `<option value="${code}"${view.dispute?.reason === code ? " selected" : ""}>${escape(label)}</option>`)
        .join("")}</select>
      <label for="dispute-message">${escape(t.details)}</label>
      <textarea id="dispute-message" name="message" rows="3" maxlength="2000">${escape(view.dispute?.message ?? "")}</textarea>
      <label for="attachment">${escape(t.attachment)}</label>
      <input id="attachment" name="attachment" type="file" accept=".pdf,.jpg,.jpeg,.png,application/pdf,image/jpeg,image/png" aria-describedby="attachment-hint${view.dispute === undefined ? "" : " attachment-error"}"${view.dispute === undefined ? "" : ' aria-invalid="true"'}>
      <p class="hint" id="attachment-hint">${escape(t.attachmentHint(attachmentMegabytes))}</p>${
        view.dispute === undefined ? "" : `<p class="hint field-error" id="attachment-error">${escape(view.dispute.error)}</p>`
      }`,
        t.disputeButton,
        true,
        true,
      )}</section>
  <section aria-labelledby="hardship-title"><h2 id="hardship-title">${escape(t.hardshipTitle)}</h2>${form(
    shell,
    view.csrf,
    "hardship",
    `<label for="hardship-message">${escape(t.hardshipText)}</label>
      <textarea id="hardship-message" name="message" rows="3" maxlength="2000"></textarea>`,
    t.hardshipButton,
    true,
  )}</section>`;
  const preferences = `<section aria-labelledby="prefs-title"><h2 id="prefs-title">${escape(t.prefsTitle)}</h2>${form(
    shell,
    view.csrf,
    "preferences",
    `<fieldset><legend>${escape(t.refuse)}</legend>${Channel.channels
      .map(
        (channel) =>
          `<label class="check"><input type="checkbox" name="refuse_${channel}" value="1"${view.refused.includes(channel) ? " checked" : ""}>${escape(t.channels[channel] ?? channel)}</label>`,
      )
      .join("")}</fieldset>
      <fieldset><legend>${escape(t.quiet)}</legend><div class="row">
      <div><label for="quiet_start">${escape(t.quietFrom)}</label><input id="quiet_start" name="quiet_start" type="time" value="${escape(view.quiet?.start ?? "")}"></div>
      <div><label for="quiet_end">${escape(t.quietTo)}</label><input id="quiet_end" name="quiet_end" type="time" value="${escape(view.quiet?.end ?? "")}"></div></div></fieldset>`,
    t.prefsButton,
    true,
  )}</section>`;
  return layout(
    shell,
    t.htmlTitle,
    `${notice(view.notice)}${notice(view.error, true)}${open}
  <section aria-labelledby="debt-title">
    <h1 id="debt-title">${escape(view.paid ? t.paidInFull : t.balance)}</h1>
    <p class="big">${escape(view.balance)}</p>
    <dl>${detail(t.creditor, view.creditor)}${detail(t.object, view.object)}${detail(t.reference, view.reference)}${detail(t.original, view.original)}${detail(t.dueDate, view.dueDate)}</dl>
  </section>
  ${pay}${installments}${payments}${plan}${dispute}${preferences}`,
  );
};

export const sandboxCheckoutPage = (shell: Shell, view: { readonly csrf: string; readonly session: string; readonly amount: string }): string => {
  const t = shell.texts;
  return layout(
    shell,
    t.sandboxTitle,
    `<section><h1>${escape(t.sandboxTitle)}</h1><p>${escape(t.sandboxIntro(view.amount))}</p>
    <form method="post" action="${escape(shell.path)}">${hidden("csrf_token", view.csrf)}${hidden("action", "sandbox_complete")}${hidden("session", view.session)}${hidden("lang", shell.language)}
      <button type="submit">${escape(t.sandboxPay)}</button></form>
    <form method="post" action="${escape(shell.path)}">${hidden("csrf_token", view.csrf)}${hidden("action", "sandbox_cancel")}${hidden("lang", shell.language)}
      <button type="submit" class="secondary">${escape(t.sandboxCancel)}</button></form></section>`,
  );
};
