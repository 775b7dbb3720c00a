/**
 * Operational endpoints, outside the external API's contract: liveness
 * (`/healthz`), readiness (`/readyz`: the database answers and its schema is
 * current) and Prometheus metrics (`/metrics`). See docs/operations.md.
 *
 * `/metrics` shares the public port, so it is not open to everyone: with
 * `METRICS_TOKEN` it requires that bearer token, and in production without
 * one it is not served (404). Its figures span every company, and each
 * scrape queries the database.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type Router from "@koa/router";
import { isSchemaCurrent, pingDatabase } from "@dc/db";
import { authorizationHeader } from "../auth/authorization-header.ts";
import { bearerToken } from "../auth/bearer.ts";
import { RouteNotFound } from "../http/api-error.ts";
import type { AppServices } from "../services.ts";
import type { ApiMetrics } from "./metrics.ts";

export const mountOperationalRoutes = (router: Router, services: AppServices, metrics: ApiMetrics): void => {
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const checks = { database: false, migrations: false };
    try {
      await pingDatabase(services.db);
      checks.database = true;
      checks.migrations = await isSchemaCurrent(services.db);
    } catch (error) {
      services.logger.warn({ err: error }, "readiness check failed");
    }
    const ready = checks.database && checks.migrations;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ready" : "not_ready", checks };
  });
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  const expected = services.config.metricsToken === undefined ? undefined : digest(services.config.metricsToken);
  router.get("/metrics", async (ctx) => {
    if (expected === undefined && services.config.environment === "production") throw new RouteNotFound();
    if (expected !== undefined && !timingSafeEqual(digest(bearerToken(authorizationHeader(ctx.req)) ?? ""), expected)) {
      ctx.status = 401;
      ctx.set("WWW-Authenticate", 'Bearer realm="metrics"');
      ctx.set("Cache-Control", "no-store");
      return;
    }
    ctx.set("Cache-Control", "no-store");
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
};
