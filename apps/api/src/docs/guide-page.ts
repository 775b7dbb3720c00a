/**
 * `GET /docs/guide`: getting started, from credentials to a token, a debt
 * and a synchronised snapshot, with curl and with the `@dc/client` package
 * (how to get and install it included), and where to watch a timeline run
 * (a sandbox company).
 * Plain HTML and one stylesheet: the page runs no script.
 */
import { escape } from "../consent/html.ts";
import { docsDocument } from "./layout.ts";

const block = (label: string, text: string): string =>
  `<p class="label">${escape(label)}</p>\n<pre><code>${escape(text.trim())}</code></pre>`;

const content = (baseUrl: string): string => `
<h1>Getting started</h1>
<p class="lead">Three steps take an integration from nothing to a synchronised campaign: get a token, create a debt, send a snapshot.
Every operation is described in the <a href="/docs">API reference</a>.</p>

<h2 id="credentials">0. Credentials</h2>
<p>A company administrator creates an OAuth client and receives its <code>client_id</code> and <code>client_secret</code> once
(for now with the admin CLI: <code>cli client create</code>, or <code>cli tenant create</code> for a whole test company).
Keep the secret on your server: never in a browser, a mobile app or a repository. Snapshots are sent to a campaign,
named by its API reference.</p>
${block("shell", `
export BASE_URL=${baseUrl}
export CLIENT_ID=dcc_...
export CLIENT_SECRET=dcs_...
export CAMPAIGN=acme-collections-1a93c1
`)}

<h2 id="client">Install the TypeScript client (optional)</h2>
<p>Everything below works with curl alone. For TypeScript and JavaScript there is <code>@dc/client</code>: typed paths and bodies,
tokens, retries, pagination and snapshot uploads. It is distributed as npm package tarballs, built from the platform's repository
(ask your account manager for them, or build them yourself from a checkout):</p>
${block("pack (in the platform's repository)", `
npx pnpm --filter @dc/json-text --filter @dc/domain --filter @dc/client pack --pack-destination ../dc-packages
`)}
<p>Install the client in your project (Node.js 20.19 or later, or 22.12 or later). It brings only
<code>openapi-fetch</code>: three packages, well under 2 MB. Add <code>@dc/domain</code> and <code>@dc/json-text</code> only if you send snapshots with
<code>@dc/client/snapshots</code>, which checks rows with the server's own rules before sending them.</p>
${block("install (in your project)", `
npm install ../dc-packages/dc-client-0.1.0.tgz
npm install ../dc-packages/dc-domain-0.1.0.tgz ../dc-packages/dc-json-text-0.1.0.tgz   # only for @dc/client/snapshots
`)}

<h2 id="token">1. Get an access token</h2>
<p>Server-to-server integrations use the <code>client_credentials</code> grant. Ask only for the scopes you need.
A token lasts <code>expires_in</code> seconds (3600); get a new one shortly before it expires.</p>
${block("curl", `
curl -s -X POST "$BASE_URL/oauth/token" \\
  -d grant_type=client_credentials \\
  -d client_id="$CLIENT_ID" -d client_secret="$CLIENT_SECRET" \\
  -d scope="debts:read debts:write"
`)}
${block("response", `{"access_token":"dcat_...","token_type":"Bearer","expires_in":3600,"scope":"debts:read debts:write"}`)}
${block("shell", "export TOKEN=dcat_...")}
<p>Send it on every call as <code>Authorization: Bearer &lt;access_token&gt;</code>. With the TypeScript client you do not handle
tokens at all: it gets one on the first call, caches it, renews it 60 seconds before expiry and fetches a new one if the API answers 401.</p>
${block("TypeScript (@dc/client)", `
import { createClient } from "@dc/client";

const setting = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(\`\${name} is not set\`);
  return value;
};

const api = createClient({
  baseUrl: setting("BASE_URL"),
  clientId: setting("CLIENT_ID"),
  clientSecret: setting("CLIENT_SECRET"),
  scope: "debts:read debts:write",
});
`)}

<h2 id="debt">2. Create a debt</h2>
<p><code>amount</code> (major units, at most the currency's decimals), <code>currency</code> (ISO 4217) and a debtor name are required.
Send your own <code>internal_id</code>: among the debts created through the api it is unique per creditor, so a retry after a lost response answers 409 instead of creating a duplicate. Debts that snapshots create belong to their campaign and are identified within it, so the same <code>internal_id</code> may exist once in a campaign and once among api-created debts.</p>
<p>To get the original answer back instead of that 409, send an <code>Idempotency-Key</code> of your own, a new UUID for each debt you mean to create:
a retry with the same key and the same body answers the same 201, with <code>Idempotent-Replayed: true</code>, for 24 hours.
It works the same on <code>POST /debts/batch</code>, <code>/followups</code> and <code>/creditors</code>. The TypeScript client sends one with each of these calls and keeps it across its retries.</p>
${block("curl", `
curl -s -X POST "$BASE_URL/external-api/v1/debts" \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -H "Idempotency-Key: 5f0c1d9e-8c1b-4a51-9d8e-0f6f3b1c2a47" \\
  -d '{"firstname":"Jane","lastname":"Doe","email":"jane@example.com","amount":120.5,"currency":"EUR","internal_id":"INV-1001"}'
`)}
${block("TypeScript (@dc/client)", `
const result = await api.POST("/external-api/v1/debts", {
  body: { firstname: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR", internal_id: "INV-1001" },
});
if (result.error) console.error(result.error);   // { kind: "api", status: 400, message, details } ...
else console.log(result.data.data.id);           // 201 Debt created successfully
`)}

<h2 id="snapshot">3. Keep a campaign in sync with snapshots</h2>
<p>A snapshot is the <em>complete</em> list of a campaign's open balances, one row per account (<code>internal_id</code>) or per invoice
(<code>invoice_reference</code>). After processing, new references create debts, changed balances record payments, and every active campaign
debt missing from the snapshot is settled. Give each snapshot a stable reference of its content (an export id or a UUID, never a date alone):
resending the same bytes under the same reference is always safe.</p>
<table>
  <thead><tr><th>Size</th><th>How to send it</th></tr></thead>
  <tbody>
    <tr><td>up to 20,000 rows and 10 MiB</td><td><code>PUT /external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}</code> with <code>{"rows": [...]}</code>: 202, <code>pending</code></td></tr>
    <tr><td>larger</td><td><code>POST …/start</code> with <code>{"expected_row_count": N}</code>, then <code>PUT …/chunks/0</code>, <code>…/chunks/1</code>… in order, then <code>POST …/finalize</code>: 202, <code>pending</code></td></tr>
  </tbody>
</table>
${block("curl (one request)", `
curl -s -X PUT "$BASE_URL/external-api/v1/campaigns/$CAMPAIGN/snapshots/export-2026-11-21-0001" \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -d '{"rows":[{"internal_id":"ACC-1","remaining_amount":120.5,"currency":"EUR","firstname":"Jane","lastname":"Doe"}]}'
`)}
<p>202 means accepted, not applied: read the <code>status_url</code> of the answer (<code>GET</code> the same path) until
<code>status</code> is <code>completed</code> (see <code>counts</code> and <code>warnings</code>) or <code>failed</code> (see <code>failure</code>).
With <code>Prefer: wait=30</code> the read itself waits up to 30 seconds for that outcome, so one request usually does.</p>
${block("curl (status)", `
curl -s "$BASE_URL/external-api/v1/campaigns/$CAMPAIGN/snapshots/export-2026-11-21-0001" \\
  -H "Authorization: Bearer $TOKEN" -H "Prefer: wait=30"
`)}
<p>The TypeScript client checks the rows with the same rules as the server before sending anything, picks one request or chunks,
resumes an interrupted staged upload from <code>next_chunk_index</code>, and polls for the outcome:</p>
${block("TypeScript (@dc/client)", `
import { DebtCollectionError } from "@dc/client";
import { sendSnapshot, waitForSnapshot } from "@dc/client/snapshots";

const target = { campaign: setting("CAMPAIGN"), reference: "export-2026-11-21-0001" };
try {
  await sendSnapshot(api, { ...target, rows });          // rows: SnapshotRow[] from your ledger
  const done = await waitForSnapshot(api, target);      // completed or failed
  console.log(done.status, done.counts);
} catch (error) {
  if (error instanceof DebtCollectionError) console.error(error.error);   // e.g. 422 invalid_snapshot_row with details
  else throw error;
}
`)}

<h2 id="sandbox">Watch a timeline run on a sandbox company</h2>
<p>A debt created with a <code>timeline_id</code> is worked by that collection timeline: e-mails, SMS and calls at their days,
inside the timeline's sending window. To see it without contacting anyone, use a sandbox company
(<code>cli tenant create --sandbox</code>): its channels keep every message instead of sending it, the recipient's e-mail
tag or phone ending chooses each outcome, and it runs on its own clock. <code>POST /external-api/v1/sandbox/clock/advance</code>
with <code>{"to": "..."}</code> moves that clock forward, running everything due on the way; <code>GET /external-api/v1/sandbox/messages</code>
lists what would have been sent, and <code>GET /external-api/v1/debts/{id}/timeline</code> shows where each debt stands.</p>

<h2 id="errors">Errors, retries and limits</h2>
<p>Errors share one envelope, <code>{"error": true, "message": "...", "code": 404}</code> with <code>code</code> equal to the HTTP status;
validation errors add <code>details</code> (field → reason) and snapshot errors a machine-readable <code>error_code</code>
(<code>invalid_snapshot_row</code>, <code>chunk_out_of_order</code>, <code>snapshot_reference_conflict</code>…).
The token endpoint answers OAuth errors, <code>{"error": "invalid_client", "error_description": "..."}</code>.</p>
<ul>
  <li><strong>401</strong>: the token is missing, expired or revoked: get a new one. <strong>403</strong>: the token lacks the operation's scope.</li>
  <li><strong>429</strong>: a rate limit was reached; wait for <code>Retry-After</code> seconds. <strong>503</strong>: try again shortly.</li>
  <li>Retry GET, PUT and DELETE freely (snapshot and chunk PUTs are idempotent by design). Retry a creating POST
  (<code>/debts</code>, <code>/debts/batch</code>, <code>/followups</code>, <code>/creditors</code>) only with the
  <code>Idempotency-Key</code> of its first attempt and the same body; without a key, check first (for a debt, by its <code>internal_id</code>).</li>
  <li>Lists are paginated with <code>page</code> (from 1) and <code>limit</code> (default 20, at most 100); read <code>pagination.pages</code>. To walk a whole list, pass <code>cursor=</code> (empty) instead of <code>page</code>, then each answer's <code>pagination.next_cursor</code> until it is <code>null</code>: every page is as fast as the first, and rows created meanwhile never make the walk repeat or skip a row.</li>
  <li>Snapshot bodies: at most 20,000 rows and 10 MiB each.</li>
</ul>
`;

export const guidePage = (baseUrl: string): string =>
  docsDocument({
    current: "guide",
    title: "Getting started · Debt Collection Platform API",
    body: `<main class="guide">${content(baseUrl)}</main>`,
  });
