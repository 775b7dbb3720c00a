/**
 * Cursor pagination of every list (docs/decisions/0595), through the real
 * app: a walk by cursor returns the rows of a walk by page number, in the
 * same order, each once, with the same pagination plus `next_cursor`; rows
 * added mid-walk never repeat or hide a row; and a cursor is refused (400
 * naming it) when altered, replayed by another company, for another list or
 * other filters, or given beside `page`. The table below has one case per
 * list of the OpenAPI document, which the first test checks, so a new list
 * without a cursor case fails here.
 */
import { randomUUID } from "node:crypto";
import { openApiDocument } from "@dc/contract/document";
import { insertSandboxMessages, recordEvent } from "@dc/db";
import { describe, expect, it } from "vitest";
import { createCreditor, createTimeline } from "../src/admin/collection-setup.ts";
import { createUser } from "../src/admin/companies.ts";
import { CURSOR_WITH_PAGE, INVALID_CURSOR } from "../src/http/list-walk.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const globexToken = await t.token(globex);
const acmeCompany = rows.companyOf(acme);

const V1 = "/external-api/v1";
// Instants of the seeded rows: several share one instant (the id decides), two are one microsecond apart
// (a cursor that kept milliseconds only would skip or repeat one of them).
const TIE = new Date("2026-11-01T08:00:00.000Z");
const instants = ["2026-11-01T08:00:00.000Z", "2026-11-01T08:00:00.000Z", "2026-11-01T08:00:00.000Z", "2026-11-02T09:30:00.123456Z", "2026-11-02T09:30:00.123457Z", "2026-10-15T00:00:00Z"];
let newest = new Date("2026-11-10T00:00:00Z");
/** An instant after every seeded one, later at each call: what a row created mid-walk gets. */
const later = () => (newest = new Date(newest.getTime() + 60_000));
/** PostgreSQL reads the microseconds from text; a Date would drop them. */
const at = (instant: string) => instant as unknown as Date;

// Rows of every list, at least five each.
const debtor = await rows.debtor(acme, { firstname: "Walked" });
for (let i = 0; i < 4; i++) await rows.debtor(acme, { firstname: `Other ${i}` });
const debtsSeeded: number[] = [];
for (const instant of instants) debtsSeeded.push(await rows.debt(acme, { debtor_id: debtor, created_at: at(instant) }));
const debtKey = debtsSeeded[0]!;
const debtId = ids.encode("debt", debtKey);
for (const instant of instants) await rows.followup(acme, debtKey, { created_at: at(instant) });
const payment = (paidAt: Date | string) =>
  t.db
    .insertInto("payments")
    .values({
      id: randomUUID(),
      company_id: acmeCompany,
      debt_id: debtKey,
      provider: "internal",
      kind: "direct",
      amount_minor: 1_000,
      currency: "EUR",
      status: "succeeded",
      paid_at: typeof paidAt === "string" ? at(paidAt) : paidAt,
    })
    .execute();
for (const instant of instants) await payment(instant);
for (let i = 0; i < 4; i++) await createUser(t.db, { companyId: acmeCompany, email: `walker${i}@acme.example`, password: "pw-walker-123", role: "member" });
for (let i = 0; i < 4; i++) await createCreditor(t.db, { companyId: acmeCompany, name: `Walked creditor ${i}` });
for (let i = 0; i < 4; i++) await createTimeline(t.db, acmeCompany, `Walked timeline ${i}`);
// Todos: a request and a detection at one instant (the source decides), two of each source at another.
for (const created_at of [TIE, TIE, new Date("2026-11-03T00:00:00Z")]) {
  await rows.debtorRequest(acme, debtKey, { type: "hardship", created_at });
  await rows.aiDetection(acme, debtKey, { type: "ai_dispute", created_at });
}
// Sandbox messages: both companies are sandboxes, so the list answers for each (a live company gets 404).
await t.db
  .updateTable("companies")
  .set({ sandbox: true, sandbox_now: new Date("2026-11-01T00:00:00Z") })
  .where("id", "in", [acmeCompany, rows.companyOf(globex)])
  .execute();
const messageFollowup = await rows.followup(acme, debtKey, { created_at: TIE });
const sandboxMessage = () =>
  insertSandboxMessages(t.db, [
    { companyId: acmeCompany, debtId: debtKey, followupId: messageFollowup, idempotencyKey: randomUUID(), channel: "email", recipient: "walk@acme.example", subject: "Walk", body: "Walk", outcome: "delivered", sentAt: later() },
  ]);
for (let i = 0; i < 5; i++) await sandboxMessage();
const endpointIds: string[] = [];
for (let i = 0; i < 5; i++) {
  const created = await api.post(`${V1}/webhooks/endpoints`, token, { url: `http://127.0.0.1:9/walk-${i}` });
  expect(created.status).toBe(201);
  endpointIds.push(((await created.json()) as { data: { id: string } }).data.id);
}
const endpointId = endpointIds[0]!;
const event = () => recordEvent(t.db, { companyId: acmeCompany, type: "debt.created", data: { id: "d" }, occurredAt: t.clock.now() });
for (let i = 0; i < 5; i++) await event();

interface ListCase {
  readonly operationId: string;
  readonly template: string;
  readonly path: string;
  /** Whether the newest row comes first: a row added mid-walk then sorts before the walk's position. */
  readonly newestFirst: boolean;
  /** Adds a row that sorts after (oldest first) or before (newest first) every existing one. */
  readonly addNewest: () => Promise<unknown>;
  /** The same list with other filters or another scope: a cursor of `path` is refused there. */
  readonly otherFilters?: string;
}

const cases: ReadonlyArray<ListCase> = [
  { operationId: "listCompanyUsers", template: "/company/users", path: "/company/users", newestFirst: false, addNewest: () => createUser(t.db, { companyId: acmeCompany, email: `late${randomUUID()}@acme.example`, password: "pw-late-12345", role: "member" }) },
  { operationId: "listCreditors", template: "/creditors", path: "/creditors", newestFirst: false, addNewest: () => createCreditor(t.db, { companyId: acmeCompany, name: "Late creditor" }) },
  { operationId: "listDebtors", template: "/debtors", path: "/debtors", newestFirst: false, addNewest: () => rows.debtor(acme, { firstname: "Late" }) },
  { operationId: "listTimelines", template: "/timelines", path: "/timelines", newestFirst: false, addNewest: () => createTimeline(t.db, acmeCompany, `Late ${randomUUID()}`) },
  { operationId: "listWebhookEndpoints", template: "/webhooks/endpoints", path: "/webhooks/endpoints", newestFirst: false, addNewest: () => api.post(`${V1}/webhooks/endpoints`, token, { url: "http://127.0.0.1:9/late" }) },
  { operationId: "listDebts", template: "/debts", path: "/debts", newestFirst: true, addNewest: () => rows.debt(acme, { debtor_id: debtor, created_at: later() }), otherFilters: "/debts?status=active" },
  { operationId: "listDebtsByCreditor", template: "/debts/by-creditor/{creditorId}", path: `/debts/by-creditor/${acme.creditor_id}`, newestFirst: true, addNewest: () => rows.debt(acme, { debtor_id: debtor, created_at: later() }), otherFilters: "/debts" },
  { operationId: "listDebtsByCreditorAlias", template: "/debts/creditor/{creditorId}", path: `/debts/creditor/${acme.creditor_id}`, newestFirst: true, addNewest: () => rows.debt(acme, { debtor_id: debtor, created_at: later() }), otherFilters: `/debts/by-creditor/${acme.creditor_id}?currency=USD` },
  { operationId: "listDebtsByDebtor", template: "/debts/debtor/{debtorId}", path: `/debts/debtor/${ids.encode("debtor", debtor)}`, newestFirst: true, addNewest: () => rows.debt(acme, { debtor_id: debtor, created_at: later() }), otherFilters: `/debts/by-creditor/${acme.creditor_id}` },
  { operationId: "listDebtPayments", template: "/debts/{id}/payments", path: `/debts/${debtId}/payments`, newestFirst: true, addNewest: () => payment(later()), otherFilters: `/debts/${debtId}/payments?external_payment_id=none` },
  { operationId: "listFollowups", template: "/followups", path: "/followups", newestFirst: true, addNewest: () => rows.followup(acme, debtKey, { created_at: later() }), otherFilters: "/followups?type=sms" },
  { operationId: "listFollowupsByDebt", template: "/followups/debt/{debtId}", path: `/followups/debt/${debtId}`, newestFirst: true, addNewest: () => rows.followup(acme, debtKey, { created_at: later() }), otherFilters: "/followups" },
  { operationId: "listSandboxMessages", template: "/sandbox/messages", path: "/sandbox/messages", newestFirst: true, addNewest: sandboxMessage, otherFilters: `/sandbox/messages?debt_id=${ids.encode("debt", debtsSeeded[1]!)}` },
  { operationId: "listTodos", template: "/todos", path: "/todos", newestFirst: true, addNewest: () => rows.aiDetection(acme, debtKey, { type: "objection", created_at: later() }) },
  { operationId: "listWebhookDeliveries", template: "/webhooks/endpoints/{id}/deliveries", path: `/webhooks/endpoints/${endpointId}/deliveries`, newestFirst: true, addNewest: event, otherFilters: `/webhooks/endpoints/${endpointId}/deliveries?status=pending` },
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- list bodies are read field by field
type Json = Record<string, any>;
type Pagination = { total: number; page: number; limit: number; pages: number; next_cursor?: string | null };
type ListBody = { data: Json[]; pagination: Pagination };

const badRequest = (details: Record<string, string>) => ({
  status: 400,
  body: expect.objectContaining({ error: true, code: 400, details }) as Json,
});
const invalidCursor = badRequest({ cursor: INVALID_CURSOR });

const withQuery = (path: string, query: string) => `${V1}${path}${path.includes("?") ? "&" : "?"}${query}`;
/** The documented identity of a row: its id, or for a delivery its event. */
const keyOf = (row: Json): string => String(row["id"] ?? row["event_id"]);

const read = async (list: ListCase, query: string, as = token): Promise<ListBody> => {
  const response = await api.get(withQuery(list.path, query), as);
  expect(response.status, `${list.operationId}?${query}`).toBe(200);
  return expectContract<ListBody>(response, "get", `${V1}${list.template}`);
};

const refusal = async (list: ListCase, path: string, query: string, as = token) => {
  const response = await api.get(withQuery(path, query), as);
  return { status: response.status, body: (await response.json()) as Json };
};

/** Every page by number, from 1 to the last. */
const walkByPage = async (list: ListCase, limit: number) => {
  const pages: ListBody[] = [];
  for (let page = 1; ; page++) {
    const body = await read(list, `limit=${limit}&page=${page}`);
    pages.push(body);
    if (page >= body.pagination.pages) return pages;
  }
};

/** Every page by cursor; `between` runs after each page but the last. */
const walkByCursor = async (list: ListCase, limit: number, between: (page: number) => Promise<unknown> = async () => {}) => {
  const pages: ListBody[] = [];
  let cursor = "";
  for (;;) {
    const body = await read(list, `limit=${limit}&cursor=${encodeURIComponent(cursor)}`);
    pages.push(body);
    const next = body.pagination.next_cursor;
    if (next === null || next === undefined) return pages;
    expect(pages.length, "a walk that never ends").toBeLessThan(100);
    await between(pages.length);
    cursor = next;
  }
};

const allIds = (pages: ReadonlyArray<ListBody>) => pages.flatMap((page) => page.data.map(keyOf));

describe("cursor pagination", () => {
  it("has a case for every list of the document, each documenting `cursor` and `next_cursor`", () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string }> }>> };
    const lists = Object.entries(document.paths).flatMap(([path, methods]) => {
      const operation = methods["get"];
      return operation?.parameters?.some((parameter) => parameter.name === "page") === true ? [{ path, operationId: operation.operationId, parameters: operation.parameters }] : [];
    });
    expect(lists.map((list) => list.operationId).sort()).toEqual(cases.map((list) => list.operationId).sort());
    for (const list of lists) expect(list.parameters.map((parameter) => parameter.name), list.operationId).toContain("cursor");
    const pagination = (openApiDocument() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas["Pagination"]!;
    expect(Object.keys(pagination.properties)).toEqual(["total", "page", "limit", "pages", "next_cursor"]);
  });

  describe.each(cases)("$operationId", (list) => {
    // With one row a page, every two neighbours (ties on the instant, instants a microsecond apart) meet at a cursor.
    it.each([1, 3])("walks every row once, in the order and with the pagination of the walk by page number (limit %i)", async (limit) => {
      const byPage = await walkByPage(list, limit);
      const byCursor = await walkByCursor(list, limit);
      expect(allIds(byPage).length).toBeGreaterThanOrEqual(5);
      expect(allIds(byCursor)).toEqual(allIds(byPage));
      expect(new Set(allIds(byCursor)).size).toBe(allIds(byCursor).length);
      expect(byCursor.map((page) => page.data)).toEqual(byPage.map((page) => page.data));
      // The same pagination, plus next_cursor: a string on every page but the last.
      expect(byCursor.map(({ pagination: { next_cursor: _next, ...rest } }) => rest)).toEqual(byPage.map((page) => page.pagination));
      expect(byCursor.map((page) => typeof page.pagination.next_cursor)).toEqual([...byCursor.slice(1).map(() => "string"), "object"]);
      // By page number the answer stays contract 4.9's: no next_cursor.
      expect(byPage.every((page) => !("next_cursor" in page.pagination))).toBe(true);
    });

    it("neither repeats nor hides a row when rows are added mid-walk", async () => {
      const before = allIds(await walkByPage(list, 100));
      const walked = allIds(await walkByCursor(list, 2, () => list.addNewest()));
      const after = allIds(await walkByPage(list, 100));
      const added = after.filter((id) => !before.includes(id));
      expect(added.length).toBeGreaterThan(0);
      // Newest first, an added row sorts before the walk's position: outside the walk. Oldest first, it
      // sorts after every row: the walk ends with it.
      expect(walked).toEqual(list.newestFirst ? before : [...before, ...added]);
    });

    it("refuses an altered cursor, another company's, `page` beside it, and an oversized one", async () => {
      const first = await read(list, "limit=2&cursor=");
      const cursor = first.pagination.next_cursor!;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      const flipped = `${cursor.slice(0, 10)}${cursor[10] === "A" ? "B" : "A"}${cursor.slice(11)}`;
      for (const bad of [flipped, cursor.slice(0, -2), `${cursor}AA`, "not-a-cursor"]) {
        expect(await refusal(list, list.path, `cursor=${encodeURIComponent(bad)}`), bad).toEqual(invalidCursor);
      }
      expect(await refusal(list, list.path, `cursor=${cursor}&page=2`)).toEqual(badRequest({ page: CURSOR_WITH_PAGE }));
      expect(await refusal(list, list.path, "cursor=&page=1")).toEqual(badRequest({ page: CURSOR_WITH_PAGE }));
      expect(await refusal(list, list.path, `cursor=${"A".repeat(513)}`)).toEqual(badRequest({ cursor: "must be at most 512 characters" }));
      // Another company replaying it reads nothing: on its own list the cursor is refused like a forged
      // one; under this company's path parameter, either that or the path's 404 (whichever is checked first).
      const replayed = await refusal(list, list.path, `cursor=${cursor}`, globexToken);
      if (replayed.status === 404) expect(list.path).toMatch(/\/[A-Za-z0-9_-]{35}(\/|$)/);
      else expect(replayed).toEqual(invalidCursor);
    });

    it.runIf(list.otherFilters !== undefined)("refuses its cursor on other filters or another scope, and keeps it across `limit`", async () => {
      const cursor = (await read(list, "limit=2&cursor=")).pagination.next_cursor!;
      expect(await refusal(list, list.otherFilters!, `cursor=${cursor}`)).toEqual(invalidCursor);
      const wider = await read(list, `limit=3&cursor=${cursor}`);
      expect(wider.pagination).toMatchObject({ page: 1, limit: 3 });
      expect(wider.data.map(keyOf)).toEqual(allIds(await walkByPage(list, 100)).slice(2, 5));
    });
  });

  it("shares cursors between a list and its alias, and between the two followup lists of one debt", async () => {
    const byCreditor = cases.find((list) => list.operationId === "listDebtsByCreditor")!;
    const alias = cases.find((list) => list.operationId === "listDebtsByCreditorAlias")!;
    const cursor = (await read(byCreditor, "limit=2&cursor=")).pagination.next_cursor!;
    expect((await read(alias, `limit=2&cursor=${cursor}`)).data).toEqual((await read(byCreditor, `limit=2&cursor=${cursor}`)).data);
    const byDebt = cases.find((list) => list.operationId === "listFollowupsByDebt")!;
    const filtered = { ...byDebt, path: `/followups?debt_id=${debtId}`, template: "/followups" };
    const followupCursor = (await read(byDebt, "limit=2&cursor=")).pagination.next_cursor!;
    expect((await read(filtered, `limit=2&cursor=${followupCursor}`)).data).toEqual((await read(byDebt, `limit=2&cursor=${followupCursor}`)).data);
  });

  it("refuses a cursor of one list on another list", async () => {
    const creditors = cases.find((list) => list.operationId === "listCreditors")!;
    const cursor = (await read(creditors, "limit=1&cursor=")).pagination.next_cursor!;
    for (const path of ["/debtors", "/company/users", "/webhooks/endpoints", "/timelines"]) {
      expect(await refusal(creditors, path, `cursor=${cursor}`), path).toEqual(invalidCursor);
    }
  });

  it("answers an empty list with one page and a null next_cursor", async () => {
    const body = await expectContract<ListBody>(await api.get(`${V1}/debts?status=disputed&cursor=`, token), "get", `${V1}/debts`);
    expect(body).toEqual({ error: false, data: [], pagination: { total: 0, page: 1, limit: 20, pages: 0, next_cursor: null } });
  });
});
