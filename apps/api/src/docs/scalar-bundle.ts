/**
 * The Scalar API reference renderer, served from its self-contained browser
 * build: the installed `@scalar/api-reference` package's, or the copy the api
 * image ships instead of the package; never from a CDN. Read and gzipped
 * once, on first use; browsers revalidate it by an ETag of its content.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

export interface StaticAsset {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
}

const require = createRequire(import.meta.url);

/**
 * The api image's copy of the bundle (apps/api/Dockerfile), which ships
 * without the package and its dependencies; in a workspace install, none.
 */
const prebuilt = fileURLToPath(new URL("../../static/scalar-standalone.js", import.meta.url));

/**
 * The prebuilt copy when there is one, else `dist/browser/standalone.js` of
 * the installed package (its `exports` do not list it, so it is found from
 * the main entry).
 */
const bundlePath = (): string =>
  existsSync(prebuilt)
    ? prebuilt
    : join(dirname(require.resolve("@scalar/api-reference")), "browser", "standalone.js");

let loading: Promise<StaticAsset> | undefined;

export const scalarBundle = (): Promise<StaticAsset> =>
  (loading ??= (async () => {
    const body = await readFile(bundlePath());
    return { body, gzipped: await promisify(gzip)(body, { level: 9 }), etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  }));
