/**
 * The numbers the api reports about debts, checked against the rows: the
 * creditor's `totalDebts`, `totalAmount` and `totalAmountByCurrency`
 * (docs/decisions/0102) and `pagination.total` of every filtered debt list
 * (contract 4.9), after states built through the public api. Each expected
 * number is computed here by plain SQL over `debts`, never from the counters.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Numbers");
const token = await t.token(acme);
const companyKey = ids.decode("company", acme.company_id)!;

const DEBTS = "/external-api/v1/debts";
const CREDITORS = "/external-api/v1/creditors";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const newCreditor = async (name: string): Promise<{ id: string; key: number }> => {
  const response = await api.post(CREDITORS, token, { name });
  expect(response.status).toBe(201);
  const id = ((await response.json()) as Json)["data"]["id"] as string;
  return { id, key: ids.decode("creditor", id)! };
};

const createDebt = async (body: Json): Promise<string> => {
  const response = await api.post(DEBTS, token, { lastname: "Doe", currency: "EUR", ...body });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as Json)["data"]["id"] as string;
};

/** What the creditor read reports. */
const reported = async (creditorId: string) => {
  const body = await expectContract<Json>(
    await api.get(`${CREDITORS}/${creditorId}`, token),
    "get",
    `${CREDITORS}/{id}`,
  );
  const { totalDebts, totalAmount, totalAmountByCurrency } = body["data"]["data"] as Json;
  return { totalDebts, totalAmount, totalAmountByCurrency };
};

/**
 * The same numbers from the rows: count and remaining balances per currency
 * (numeric arithmetic, converted to major units by each currency's exponent
 * in SQL), the grand total as exact decimal text.
 */
const counted = async (creditorKey: number) => {
  const { rows } = await sql<{ currency: string; n: string; balance: string }>`
    select currency, count(*)::text as n,
      (sum(balance_minor)::numeric / (case when currency in ('JPY', 'KRW') then 1
        when currency in ('KWD', 'BHD') then 1000 else 100 end))::text as balance
    from debts where company_id = ${companyKey} and creditor_id = ${creditorKey}
    group by currency order by currency`.execute(t.db);
  const byCurrency: Record<string, number> = {};
  let totalDebts = 0;
  for (const row of rows) {
    totalDebts += Number(row.n);
    byCurrency[row.currency] = Number(row.balance);
  }
  const { rows: sum } = await sql<{ total: string | null }>`
    select sum(balance_minor::numeric / (case when currency in ('JPY', 'KRW') then 1
        when currency in ('KWD', 'BHD') then 1000 else 100 end))::text as total
    from debts where company_id = ${companyKey} and creditor_id = ${creditorKey}`.execute(t.db);
  return { totalDebts, totalAmount: Number(sum[0]?.total ?? 0), totalAmountByCurrency: byCurrency };
};

const expectTotalsMatchRows = async (creditor: { id: string; key: number }) => {
  expect(await reported(creditor.id)).toEqual(await counted(creditor.key));
};

const listTotal = async (path: string): Promise<number> => {
  const response = await api.get(path, token);
  expect(response.status).toBe(200);
  return ((await response.json()) as Json)["pagination"]["total"] as number;
};

describe("creditor totals against the rows", () => {
  it("match after single creates, a batch with failed and skipped entries, credit notes and deletes", async () => {
    const creditor = await newCreditor("Totals after writes");
    const first = await createDebt({
      creditor_id: creditor.id,
      amount: 120.5,
      internal_id: "T-1",
      invoice_reference: "INV-1",
    });
    await createDebt({ creditor_id: creditor.id, amount: 1000, currency: "JPY", internal_id: "T-2" });
    await createDebt({ creditor_id: creditor.id, amount: 1.234, currency: "KWD", internal_id: "T-3" });
    await expectTotalsMatchRows(creditor);

    const batch = await api.post(`${DEBTS}/batch`, token, {
      creditor_id: creditor.id,
      debts: [
        { lastname: "A", amount: 10.1, currency: "EUR", internal_id: "B-1", invoice_reference: "INV-B1" },
        { lastname: "B", amount: -5, currency: "EUR", internal_id: "B-2" },
        { lastname: "C", amount: 3, currency: "EUR", internal_id: "T-1" },
        { lastname: "D", amount: 4, currency: "EUR", internal_id: "B-1" },
        { lastname: "E", amount: 2.5, currency: "EUR", internal_id: "B-5", credited_invoice_reference: "INV-1" },
        { lastname: "F", amount: 7, currency: "EUR", internal_id: "B-6", credited_invoice_reference: "INV-B1" },
        { lastname: "G", amount: 7, currency: "USD", internal_id: "B-7", credited_invoice_reference: "INV-1" },
      ],
    });
    expect(batch.status).toBe(201);
    const summary = ((await batch.json()) as Json)["data"]["summary"] as Json;
    expect(summary).toMatchObject({ total: 7, created: 3, skipped: 2, failed: 2 });
    await expectTotalsMatchRows(creditor);
    expect((await reported(creditor.id)).totalDebts).toBe(6);

    expect((await api.del(`${DEBTS}/${first}`, token)).status).toBe(200);
    await expectTotalsMatchRows(creditor);
    expect(await listTotal(`${DEBTS}/by-creditor/${creditor.id}`)).toBe(5);
  });

  it("follow a debt the platform moves to another creditor, or whose amount, currency or status it changes", async () => {
    // No api operation changes these columns (decision 0111); the platform's own writes do, through any statement.
    const from = await newCreditor("Move from");
    const to = await newCreditor("Move to");
    const moved = ids.decode("debt", await createDebt({ creditor_id: from.id, amount: 30.3 }))!;
    const changed = ids.decode("debt", await createDebt({ creditor_id: from.id, amount: 40.4 }))!;
    await createDebt({ creditor_id: to.id, amount: 1 });
    await sql`update debts set creditor_id = ${to.key} where id = ${moved}`.execute(t.db);
    await sql`update debts set amount_minor = 5000, balance_minor = 2500, currency = 'USD', status = 'status.default.in_progress'
      where id = ${changed}`.execute(t.db);
    await sql`update debts set creditor_id = case when id = ${moved} then ${from.key}::int8 else ${to.key}::int8 end,
      balance_minor = balance_minor + 1 where id in (${moved}, ${changed})`.execute(t.db);
    await expectTotalsMatchRows(from);
    await expectTotalsMatchRows(to);
    expect((await reported(from.id)).totalDebts).toBe(1);
    expect((await reported(to.id)).totalDebts).toBe(2);
    expect(await listTotal(`${DEBTS}/by-creditor/${to.id}?currency=USD&status=active`)).toBe(1);
  });

  it("are exact for many amounts with cents (0.10 and 0.20, 300 times each)", async () => {
    const creditor = await newCreditor("Cents");
    const debts = Array.from({ length: 600 }, (_, i) => ({
      lastname: `Cent ${i}`,
      amount: i % 2 === 0 ? 0.1 : 0.2,
      currency: "EUR",
      internal_id: `C-${i}`,
    }));
    for (let start = 0; start < debts.length; start += 200) {
      const response = await api.post(`${DEBTS}/batch`, token, {
        creditor_id: creditor.id,
        debts: debts.slice(start, start + 200),
      });
      expect(response.status).toBe(201);
    }
    const text = await (await api.get(`${CREDITORS}/${creditor.id}`, token)).text();
    expect(text).toContain(`"totalAmount":90,`);
    expect(text).toContain(`"totalAmountByCurrency":{"EUR":90}`);
    await expectTotalsMatchRows(creditor);
  });

  it("are exact for a mix of currencies whose sum has four decimals", async () => {
    const creditor = await newCreditor("Mixed");
    await createDebt({ creditor_id: creditor.id, amount: 0.1, currency: "EUR" });
    await createDebt({ creditor_id: creditor.id, amount: 0.2, currency: "USD" });
    await createDebt({ creditor_id: creditor.id, amount: 0.001, currency: "KWD" });
    await createDebt({ creditor_id: creditor.id, amount: 7, currency: "JPY" });
    const text = await (await api.get(`${CREDITORS}/${creditor.id}`, token)).text();
    expect(text).toContain(`"totalAmount":7.301,`);
    await expectTotalsMatchRows(creditor);
  });

  it("give the nearest number to the exact total when the total is large (above 2^53 at four decimals)", async () => {
    const creditor = await newCreditor("Large");
    await createDebt({ creditor_id: creditor.id, amount: 9_000_000_000_000, internal_id: "L-1" });
    await createDebt({ creditor_id: creditor.id, amount: 1.02, internal_id: "L-2" });
    const text = await (await api.get(`${CREDITORS}/${creditor.id}`, token)).text();
    expect(text).toContain(`"totalAmountByCurrency":{"EUR":9000000000001.02}`);
    expect(text).toContain(`"totalAmount":9000000000001.02,`);
    await expectTotalsMatchRows(creditor);
  });

  it("equal the real counts after 20 concurrent creations and deletes on one creditor", async () => {
    const creditor = await newCreditor("Concurrent");
    const seeded = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createDebt({ creditor_id: creditor.id, amount: (100 + i) / 100 })),
    );
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        createDebt({ creditor_id: creditor.id, amount: (200 + i) / 100, currency: i % 2 ? "EUR" : "USD" }),
      ),
      ...seeded.slice(0, 15).map(async (id) => expect((await api.del(`${DEBTS}/${id}`, token)).status).toBe(200)),
    ]);
    await expectTotalsMatchRows(creditor);
    expect((await reported(creditor.id)).totalDebts).toBe(25);
    expect(await listTotal(`${DEBTS}/by-creditor/${creditor.id}`)).toBe(25);
  });
});

describe("filtered debt list totals against the rows", () => {
  it("count exactly the rows each filter matches, on every debt list", async () => {
    const creditor = await newCreditor("Filters");
    const debtorRef = "DEBTOR-F";
    const created: string[] = [];
    const amounts = [0.01, 5, 10, 10.5, 99.99, 100, 250, 1000];
    for (const [i, amount] of amounts.entries()) {
      t.clock.set(new Date(Date.UTC(2026, 10, 21, 10, i)));
      created.push(
        await createDebt({
          creditor_id: creditor.id,
          amount,
          currency: i % 3 === 0 ? "USD" : "EUR",
          internal_id: `FILTER-${i}`,
          debtor_reference: i < 4 ? debtorRef : undefined,
        }),
      );
    }
    // Statuses are the platform's to move (decision 0007): set them as a snapshot or timeline would.
    const keys = created.map((id) => ids.decode("debt", id)!);
    await sql`update debts set status = 'status.default.paid', balance_minor = 0 where id = any(${[keys[1], keys[2]]}::int8[])`.execute(
      t.db,
    );
    await sql`update debts set status = 'status.default.disputed' where id = ${keys[3]}`.execute(t.db);
    await sql`update debts set status = 'status.default.in_progress' where id = ${keys[4]}`.execute(t.db);
    await sql`update debts set status = 'status.default.cancelled' where id = ${keys[5]}`.execute(t.db);
    for (const internalId of ["X_Y", "XAY", "P%Q", "B\\S"]) {
      await createDebt({ creditor_id: creditor.id, amount: 3, internal_id: internalId });
    }
    const debtor = await t.db
      .selectFrom("debtors")
      .select("id")
      .where("company_id", "=", companyKey)
      .where("debtor_reference", "=", debtorRef)
      .executeTakeFirstOrThrow();

    /** The rows `where` (a constant predicate of this test) matches, counted on `debts`. */
    const count = async (where: string) => {
      const { rows } = await sql<{ n: string }>`
        select count(*)::text as n from debts where company_id = ${companyKey} and ${sql.raw(where)}`.execute(t.db);
      return Number(rows[0]!.n);
    };
    const major = `amount_minor::numeric / (case when currency in ('JPY', 'KRW') then 1
      when currency in ('KWD', 'BHD') then 1000 else 100 end)`;
    const scopes: Array<[string, string]> = [
      [`${DEBTS}/by-creditor/${creditor.id}`, `creditor_id = ${creditor.key}`],
      [`${DEBTS}/creditor/${creditor.id}`, `creditor_id = ${creditor.key}`],
      [`${DEBTS}/debtor/${ids.encode("debtor", debtor.id)}`, `debtor_id = ${debtor.id}`],
      [DEBTS, "true"],
    ];
    const filters: Array<[string, string]> = [
      ["", "true"],
      [
        "status=active",
        "status in ('status.default.pending','status.default.in_progress','status.default.payment_plan')",
      ],
      ["status=paid", "status = 'status.default.paid'"],
      ["status=disputed", "status = 'status.default.disputed'"],
      ["status=status.default.cancelled", "status = 'status.default.cancelled'"],
      ["currency=USD", "currency = 'USD'"],
      [
        "status=active&currency=EUR",
        "status in ('status.default.pending','status.default.in_progress','status.default.payment_plan') and currency = 'EUR'",
      ],
      ["amount_min=10", `${major} >= 10`],
      ["amount_max=10.5", `${major} <= 10.5`],
      ["amount_min=0.01&amount_max=100", `${major} between 0.01 and 100`],
      ["amount_min=1000&currency=JPY", `${major} >= 1000 and currency = 'JPY'`],
      ["created_after=2026-11-21T10:03:00%2B00:00", "created_at >= '2026-11-21T10:03:00Z'"],
      ["created_before=2026-11-21T10:03:00Z", "created_at < '2026-11-21T10:03:00Z'"],
      ["search=filter-1", "(internal_id ilike '%filter-1%' or amount_text ilike '%filter-1%')"],
      ["search=10", "(internal_id ilike '%10%' or amount_text ilike '%10%')"],
      ["search=.5", "(internal_id ilike '%.5%' or amount_text ilike '%.5%')"],
      // LIKE's wildcards and escape are plain characters of the search: compared with strpos, not LIKE.
      ["search=_", "(strpos(lower(internal_id), '_') > 0 or strpos(lower(amount_text), '_') > 0)"],
      ["search=%25", "(strpos(lower(internal_id), '%') > 0 or strpos(lower(amount_text), '%') > 0)"],
      ["search=%5C", "(strpos(lower(internal_id), '\\') > 0 or strpos(lower(amount_text), '\\') > 0)"],
      ["search=x_y", "(strpos(lower(internal_id), 'x_y') > 0 or strpos(lower(amount_text), 'x_y') > 0)"],
    ];
    for (const [path, scopeWhere] of scopes) {
      for (const [query, where] of filters) {
        const total = await listTotal(`${path}?limit=1${query === "" ? "" : `&${query}`}`);
        expect({ path, query, total }).toEqual({ path, query, total: await count(`${scopeWhere} and ${where}`) });
      }
    }
  });

  it("never count a debt an amount bound excludes: a bound a number cannot hold exactly is refused, not rounded", async () => {
    const creditor = await newCreditor("Precise bounds");
    await createDebt({ creditor_id: creditor.id, amount: 10, internal_id: "P-1" });
    const list = `${DEBTS}/by-creditor/${creditor.id}`;
    for (const query of ["amount_min=10.0000000000000001", "amount_max=9.9999999999999999"]) {
      const response = await api.get(`${list}?${query}`, token);
      const body = (await response.json()) as Json;
      expect({ query, status: response.status, total: body["pagination"]?.["total"] }).not.toEqual({
        query,
        status: 200,
        total: 1,
      });
      const field = query.slice(0, query.indexOf("="));
      expect({ query, status: response.status, details: body["details"] }).toEqual({
        query,
        status: 400,
        details: { [field]: "has more significant digits than a number holds exactly" },
      });
    }
    // Bounds that a number holds exactly still compare exactly on the amount.
    expect(await listTotal(`${list}?amount_min=10.0000000000001`)).toBe(0);
    expect(await listTotal(`${list}?amount_max=9.99999999999999`)).toBe(0);
    expect(await listTotal(`${list}?amount_min=10&amount_max=10.00`)).toBe(1);
  });

  it("count by the exact instant of a created bound with more than millisecond precision", async () => {
    const creditor = await newCreditor("Precise instants");
    t.clock.set(new Date("2026-11-21T10:20:00.000Z"));
    await createDebt({ creditor_id: creditor.id, amount: 1, internal_id: "I-1" });
    t.clock.set(new Date("2026-11-21T10:20:00.999Z"));
    await createDebt({ creditor_id: creditor.id, amount: 1, internal_id: "I-2" });
    const list = `${DEBTS}/by-creditor/${creditor.id}`;
    const bounds = [
      "2026-11-21T10:20:00.000001Z",
      "2026-11-21T10:20:00.0000001Z",
      "2026-11-21T10:20:00.000000001Z",
      "2026-11-21T10:20:00.9989999Z",
      "2026-11-21T10:20:00.999000001Z",
      "2026-11-21T12:20:00.0005%2B02:00",
      "2026-11-21T10:20:00.000Z",
      "2026-11-21T10:20:00.999999999Z",
    ];
    for (const bound of bounds) {
      // The bound's exact instant: its whole seconds, then its fraction as an exact numeric (no rounding).
      const instant = bound.replace("%2B", "+");
      const fraction = /\.(\d+)/.exec(instant)?.[1] ?? "0";
      const seconds = instant.replace(/\.\d+/, "");
      const { rows } = await sql<{ after: string; before: string }>`
        with b as (select extract(epoch from ${seconds}::timestamptz) + ${`0.${fraction}`}::numeric as at)
        select count(*) filter (where extract(epoch from created_at) >= b.at)::text as after,
          count(*) filter (where extract(epoch from created_at) < b.at)::text as before
        from debts, b where company_id = ${companyKey} and creditor_id = ${creditor.key}`.execute(t.db);
      expect({ bound, after: await listTotal(`${list}?created_after=${bound}`) }).toEqual({
        bound,
        after: Number(rows[0]!.after),
      });
      expect({ bound, before: await listTotal(`${list}?created_before=${bound}`) }).toEqual({
        bound,
        before: Number(rows[0]!.before),
      });
    }
    expect(
      await listTotal(`${list}?created_after=2026-11-21T10:20:00.0001Z&created_before=2026-11-21T10:20:00.0002Z`),
    ).toBe(0);
    t.clock.set(new Date("2026-11-21T10:00:00.000Z"));
  });
});
