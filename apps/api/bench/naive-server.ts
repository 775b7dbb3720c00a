/**
 * The floor the issue compares against: a bare Koa + pg handler running the
 * naive two queries (a page with OFFSET, and count(*)) over the same company-scoped
 * index the api uses, no authentication, no
 * validation, no encoding. `node naive-server.ts <databaseUrl> <port>`.
 */
import Koa from "koa";
import pg from "pg";

const [databaseUrl, port] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const app = new Koa();
app.use(async (ctx) => {
  const match = /^\/naive\/(\d+)\/(\d+)$/.exec(ctx.path);
  if (match === null) {
    ctx.status = 404;
    return;
  }
  const page = Number(ctx.query["page"] ?? 1);
  const limit = Number(ctx.query["limit"] ?? 20);
  const [rows, total] = await Promise.all([
    pool.query(
      "select * from debts where company_id = $1 and creditor_id = $2 order by created_at desc, id desc offset $3 limit $4",
      [match[1], match[2], (page - 1) * limit, limit],
    ),
    pool.query("select count(*) from debts where company_id = $1 and creditor_id = $2", [match[1], match[2]]),
  ]);
  ctx.body = { error: false, data: rows.rows, pagination: { total: Number(total.rows[0].count), page, limit } };
});
app.listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"));
