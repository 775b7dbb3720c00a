/** The Koa application: middleware order, routes and fallbacks. */
import { endpoints } from "@dc/contract";
import { openApiDocument } from "@dc/contract/document";
import Koa from "koa";
import { mountAuthorizationPages } from "./consent/mount.ts";
import { mountDebtorPages } from "./debtor-page/mount.ts";
import { mountDocs } from "./docs/mount.ts";
import { mountEmailRoutes } from "./email/mount.ts";
import { MethodNotAllowed, OAuthFailure, RouteNotFound } from "./http/api-error.ts";
import { compressResponses, type Precompressed, precompress, sendPrecompressed } from "./http/compression.ts";
import type { Handlers } from "./http/handler.ts";
import type { InFlight } from "./http/in-flight.ts";
import { refuseRepeatedHost } from "./http/parser-refusals.ts";
import { requestContext } from "./http/request-context.ts";
import { buildRouter } from "./http/router.ts";
import { createApiMetrics } from "./observability/metrics.ts";
import { mountOperationalRoutes } from "./observability/routes.ts";
import { mountProviderCallbacks } from "./provider-callbacks/mount.ts";
import { handlers as defaultHandlers } from "./routes/index.ts";
import type { AppServices } from "./services.ts";

/** Paths of the endpoints that answer errors as OAuth 2.0 does (`{error, error_description}`): token and revocation. */
const oauthErrorPaths = new Set(
  Object.values(endpoints)
    .filter((endpoint) => endpoint.errors.some((error) => error.envelope === "oauth"))
    .map((endpoint) => endpoint.path),
);

/** `inFlight` counts this app's requests (the per-company cap and the drain of a graceful stop). */
export const createApp = (services: AppServices, inFlight: InFlight, handlers: Handlers = defaultHandlers): Koa => {
  const app = new Koa({ proxy: false });
  // Errors are rendered by requestContext; Koa's default stderr printing would duplicate them.
  app.silent = true;
  const router = buildRouter(services, handlers, inFlight);
  let document: Promise<Precompressed> | undefined;
  router.get("/external-api/v1/openapi.json", async (ctx) => {
    document ??= precompress(Buffer.from(JSON.stringify(openApiDocument())));
    sendPrecompressed(ctx, await document, "application/json; charset=utf-8");
  });
  mountAuthorizationPages(router, services);
  mountDebtorPages(router, services);
  mountDocs(router, services);
  mountProviderCallbacks(router, services);
  mountEmailRoutes(router, services);

  const metrics = createApiMetrics(services.db);
  mountOperationalRoutes(router, services, metrics);

  app.use(async (ctx, next) => {
    try {
      await inFlight.track(next);
    } finally {
      // During a graceful stop, a kept-alive connection is closed after its response.
      if (inFlight.stopping()) ctx.set("Connection", "close");
    }
  });
  // Outside requestContext, so the error bodies it renders are compressed too.
  app.use(compressResponses());
  app.use(requestContext(services.logger, metrics.observeRequest, (path) => oauthErrorPaths.has(path)));
  app.use(async (ctx, next) => {
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Cache-Control", "no-store");
    await next();
  });
  app.use(refuseRepeatedHost);
  app.use(router.routes());
  app.use(async (ctx) => {
    // Reached only when no route handled the request.
    const matched = router.match(ctx.path, ctx.method);
    if (matched.path.length > 0 && !matched.route) {
      const allow = [...new Set(matched.path.flatMap((layer) => layer.methods))].filter((method) => method !== "HEAD");
      // The OAuth endpoints answer every error in RFC 6749's shape, this one included.
      if (oauthErrorPaths.has(ctx.path)) {
        throw new OAuthFailure({ error: "invalid_request", description: `Method not allowed: use ${allow.join(", ")}`, status: 405, allow });
      }
      throw new MethodNotAllowed({ allow });
    }
    throw new RouteNotFound();
  });
  return app;
};
