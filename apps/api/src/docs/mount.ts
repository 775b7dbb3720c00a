/**
 * The developer documentation, outside the API's contract: `/docs` (the
 * interactive reference), `/docs/guide` (getting started) and their assets
 * under `/docs/assets/`. Everything is served by this process; the pages
 * load nothing from another origin.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import type { AppServices } from "../services.ts";
import { startScriptAsset, stylesheetAsset, type TextAsset } from "./browser-assets.ts";
import { guidePage } from "./guide-page.ts";
import { referencePage } from "./reference-page.ts";
import { scalarBundle } from "./scalar-bundle.ts";
import { guidePolicy, newNonce, referencePolicy, sendHtml } from "./security-headers.ts";

/** Assets are revalidated on every use (cheap: 304 by ETag), so an upgrade is seen at once. */
const cacheable = (ctx: Context, etag: string, type: string): boolean => {
  ctx.set("Cache-Control", "no-cache");
  ctx.set("ETag", etag);
  ctx.set("Cross-Origin-Resource-Policy", "same-origin");
  ctx.type = type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return false;
  }
  return true;
};

const sendText = (asset: TextAsset) => (ctx: Context) => {
  if (cacheable(ctx, asset.etag, asset.type)) ctx.body = asset.body;
};

/** The interactive reference, the page integrators are pointed at (the OAuth metadata's `service_documentation`). */
export const DOCS_PATH = "/docs";

export const mountDocs = (router: Router, services: AppServices): void => {
  router.get(DOCS_PATH, (ctx) => {
    const nonce = newNonce();
    sendHtml(ctx, referencePage(nonce), referencePolicy(nonce));
  });
  router.get("/docs/guide", (ctx) => {
    sendHtml(ctx, guidePage(publicBaseUrl(services, ctx)), guidePolicy);
  });
  router.get("/docs/assets/docs.js", sendText(startScriptAsset));
  router.get("/docs/assets/docs.css", sendText(stylesheetAsset));
  router.get("/docs/assets/scalar.js", async (ctx) => {
    const bundle = await scalarBundle();
    const gzipped = ctx.acceptsEncodings("gzip", "identity") === "gzip";
    ctx.vary("Accept-Encoding");
    // Each encoding is its own representation, so each has its own strong ETag.
    if (!cacheable(ctx, gzipped ? `${bundle.etag.slice(0, -1)}-gzip"` : bundle.etag, "text/javascript; charset=utf-8")) return;
    if (gzipped) ctx.set("Content-Encoding", "gzip");
    ctx.body = gzipped ? bundle.gzipped : bundle.body;
  });
};
