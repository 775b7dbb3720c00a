/**
 * Operational endpoints, outside the external API's contract: liveness
 * (`/healthz`), readiness (`/readyz`: the database answers and its schema is
 * current) and Prometheus metrics (`/metrics`). See docs/operations.md.
 */
import type Router from "@koa/router";
import { isSchemaCurrent } from "@dc/db";
import { sql } from "kysely";
import type { AppServices } from "../services.ts";
import type { ApiMetrics } from "./metrics.ts";

export const mountOperationalRoutes = (router: Router, services: AppServices, metrics: ApiMetrics): void => {
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const checks = { database: false, migrations: false };
    try {
      await sql`select 1`.execute(services.db);
      checks.database = true;
      checks.migrations = await isSchemaCurrent(services.db);
    } catch (error) {
      services.logger.warn({ err: error }, "readiness check failed");
    }
    const ready = checks.database && checks.migrations;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ready" : "not_ready", checks };
  });
  router.get("/metrics", async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
};
