/**
 * The floor the issue compares against: a bare Koa + pg handler running the
 * naive two queries (a page with OFFSET, and count(*)) over the same company-scoped
 * index the api uses, no authentication, no
 * validation, no encoding. `node naive-server.ts <databaseUrl> <port>`.
 *
 * `/page-only/...` is the deep-page ceiling: the page alone, no `count(*)`,
 * as cheaply as PostgreSQL serves an OFFSET (a prepared statement walking
 * the ids in an index-only scan, then reading the page's rows), so what is
 * left of a deep page's cost is PostgreSQL's walk over the skipped entries.
 */
import Koa from "koa";
import pg from "pg";

const [databaseUrl, port] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const app = new Koa();
app.use(async (ctx) => {
  const match = /^\/(naive|page-only)\/(\d+)\/(\d+)$/.exec(ctx.path);
  if (match === null) {
    ctx.status = 404;
    return;
  }
  const [, route, companyId, creditorId] = match;
  const page = Number(ctx.query["page"] ?? 1);
  const limit = Number(ctx.query["limit"] ?? 20);
  if (route === "page-only") {
    const rows = await pool.query({
      name: "page-only",
      // The page's rows by their key, (company_id, id) (docs/decisions/0023).
      text: `select d.* from debts d where d.company_id = $1 and d.id = any(array(
               select id from debts where company_id = $1 and creditor_id = $2
               order by created_at desc, id desc offset $3 limit $4))
             order by d.created_at desc, d.id desc`,
      values: [companyId, creditorId, (page - 1) * limit, limit],
    });
    ctx.body = { error: false, data: rows.rows, pagination: { page, limit } };
    return;
  }
  const [rows, total] = await Promise.all([
    pool.query(
      "select * from debts where company_id = $1 and creditor_id = $2 order by created_at desc, id desc offset $3 limit $4",
      [companyId, creditorId, (page - 1) * limit, limit],
    ),
    pool.query("select count(*) from debts where company_id = $1 and creditor_id = $2", [companyId, creditorId]),
  ]);
  ctx.body = { error: false, data: rows.rows, pagination: { total: Number(total.rows[0].count), page, limit } };
});
app.listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"));
