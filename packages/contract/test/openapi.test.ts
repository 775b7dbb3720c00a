import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/document.ts";
import { Followup } from "@dc/domain";
import { endpoints, pages, parserRefusals, providerCallbacks, rateLimitSubject } from "../src/index.ts";

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters: Array<{ name: string; in: string; required: boolean; description?: string }>;
  "x-rate-limit"?: unknown;
  responses: Record<
    string,
    {
      headers?: Record<string, unknown>;
      content?: Record<string, { examples?: Record<string, { value: { message?: string } }> }>;
    }
  >;
}

const document = openApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);

describe("the OpenAPI document", () => {
  it("has every declared endpoint, once, with a unique operationId", () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(
      [...Object.keys(endpoints), ...Object.keys(pages), ...Object.keys(providerCallbacks)].sort(),
    );
  });

  it("lists the provider callbacks as public, verified by their provider's signature header", () => {
    for (const callback of Object.values(providerCallbacks)) {
      const operation = document.paths[callback.path]?.[callback.method] as unknown as Record<string, unknown>;
      expect(operation["security"], callback.operationId).toEqual([]);
      expect(operation["x-signature"], callback.operationId).toMatchObject({ header: callback.signature.header });
      expect(operation["parameters"], callback.operationId).toContainEqual(
        expect.objectContaining({ name: callback.signature.header, in: "header", required: true }),
      );
      expect(Object.keys(operation["responses"] as object), callback.operationId).toEqual(
        expect.arrayContaining([String(callback.success.status), "403"]),
      );
    }
  });

  it("gives every operation a summary, tags and its security", () => {
    for (const { operation } of operations) {
      expect(operation.summary, operation.operationId).not.toBe("");
      expect(operation.tags.length, operation.operationId).toBeGreaterThan(0);
      // Pages (browser-facing HTML) are unauthenticated.
      const declared = endpoints[operation.operationId as keyof typeof endpoints] ?? { scope: null };
      expect(operation.security, operation.operationId).toEqual(
        declared.scope === null ? [] : [{ oauth2: [declared.scope] }],
      );
    }
  });

  it("describes every tag, and every tag groups operations", () => {
    const tags = (document as unknown as { tags: Array<{ name: string; description?: string }> }).tags;
    for (const tag of tags) expect(tag.description, tag.name).not.toBe(undefined);
    expect(tags.map((tag) => tag.name).sort()).toEqual(
      [...new Set([...operations.flatMap(({ operation }) => operation.tags), "Webhook events"])].sort(),
    );
  });

  it("documents 401 and the exact 403 scope message on every protected operation", () => {
    for (const { operation } of operations) {
      const declared = endpoints[operation.operationId as keyof typeof endpoints] as
        (typeof endpoints)[keyof typeof endpoints] | undefined;
      if (declared === undefined || declared.scope === null) continue;
      const forbidden = Object.values(operation.responses["403"]?.content?.["application/json"]?.examples ?? {}).map(
        (example) => example.value.message,
      );
      expect(forbidden, operation.operationId).toContain(`Required scope "${declared.scope}" not found in token`);
      expect(operation.responses["401"], operation.operationId).toBeDefined();
    }
  });

  it("declares every path template parameter as a required path parameter", () => {
    for (const { path, operation } of operations) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const declared = operation.parameters.filter((parameter) => parameter.in === "path");
      expect(declared.map((parameter) => parameter.name).sort(), operation.operationId).toEqual(inTemplate.sort());
      expect(declared.every((parameter) => parameter.required)).toBe(true);
    }
  });

  it("describes every parameter", () => {
    for (const { operation } of operations) {
      for (const parameter of operation.parameters) {
        expect(parameter.description, `${operation.operationId} ${parameter.name}`).toMatch(/\S/);
      }
    }
  });

  it("states the values a followup is created with when its body omits status or is_retry (contract 2.4, 4.6)", () => {
    const schemas = document.components["schemas"] as Record<
      string,
      { properties: Record<string, { default?: unknown }> }
    >;
    const created = schemas["FollowupCreate"]!.properties;
    expect(created["status"]?.default).toBe("on_hold");
    expect(created["status"]?.default).toBe(Followup.defaultStatus);
    expect(created["is_retry"]?.default).toBe(false);
  });

  it("declares every plain date of the debt and debtor resources as a date YYYY-MM-DD (contract 2.1)", () => {
    const schemas = document.components["schemas"] as Record<string, { properties: Record<string, unknown> }>;
    const formatOf = (property: unknown): unknown => {
      const { anyOf, format } = property as { anyOf?: unknown[]; format?: unknown };
      return anyOf === undefined ? format : anyOf.map(formatOf).find((found) => found !== undefined);
    };
    const plainDates = { Debt: ["birthdate", "invoice_date", "due_date", "plan_start_date"], Debtor: ["birthdate"] };
    for (const [schema, properties] of Object.entries(plainDates)) {
      for (const property of properties) {
        expect(formatOf(schemas[schema]!.properties[property]), `${schema}.${property}`).toBe("date");
      }
    }
  });

  it("tells apart the timestamp forms of contract 2.1: with offset for followups, debts and the company, UTC with Z for snapshots", () => {
    const schemas = document.components["schemas"] as Record<string, { properties: Record<string, unknown> }>;
    const patternOf = (property: unknown): RegExp => {
      const { anyOf, pattern } = property as { anyOf?: unknown[]; pattern?: string };
      const found =
        anyOf === undefined
          ? pattern
          : (anyOf as Array<{ pattern?: string }>).find((branch) => branch.pattern)?.pattern;
      expect(found).toBeDefined();
      return new RegExp(found!);
    };
    for (const [schema, property] of [
      ["Followup", "created_at"],
      ["Followup", "call_date"],
      ["Debt", "import_date"],
      ["Debt", "last_timeline_restart"],
      ["CompanyProfile", "created_at"],
    ] as const) {
      const pattern = patternOf(schemas[schema]!.properties[property]);
      expect(pattern.test("2026-11-21T16:03:18+00:00"), `${schema}.${property}`).toBe(true);
      expect(pattern.test("2026-11-21T16:03:18Z"), `${schema}.${property}`).toBe(false);
      expect(pattern.test("2026-11-21T16:03:18.123Z"), `${schema}.${property}`).toBe(false);
    }
    const snapshot = patternOf(schemas["SnapshotAcknowledgement"]!.properties["created_at"]);
    expect(snapshot.test("2026-11-21T16:03:18.123Z")).toBe(true);
    expect(snapshot.test("2026-11-21T16:03:18+00:00")).toBe(false);
  });

  it("documents Location on every redirect and on every acknowledgement of a snapshot write (contract 4.2, 4.3)", () => {
    for (const { method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const snapshotWrite = operation.tags.includes("Snapshots") && method !== "get" && status.startsWith("2");
        if (status.startsWith("3") || snapshotWrite) {
          expect(response.headers?.["Location"], `${operation.operationId} ${status}`).toBeDefined();
        }
      }
    }
  });

  it("names `iss` wherever it describes an authorization response, which always carries it (RFC 9207, decision 0207)", () => {
    const authorization = operations.filter(({ path }) => path === pages.authorize.path);
    expect(authorization.map(({ method }) => method).sort()).toEqual(["get", "post"]);
    for (const { operation } of authorization) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith("3")) continue;
        const described = response as { description: string; headers?: Record<string, { description?: string }> };
        expect(described.description, `${operation.operationId} ${status}`).toContain("`iss`");
        expect(described.headers?.["Location"]?.description, `${operation.operationId} ${status} Location`).toContain(
          "`iss`",
        );
      }
    }
    const start = authorization.find(({ method }) => method === "get")!.operation as Operation & {
      description: string;
    };
    expect(start.description).toContain("`iss`");
  });

  it("declares the challenge, retry and rate-limit headers where the api sends them", () => {
    const headerComponents = (document.components["headers"] ?? {}) as Record<string, unknown>;
    expect(Object.keys(headerComponents).sort()).toEqual(
      [
        "Accept-Encoding",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "WWW-Authenticate",
      ].sort(),
    );
    for (const { operation } of operations) {
      const declared = endpoints[operation.operationId as keyof typeof endpoints] as
        (typeof endpoints)[keyof typeof endpoints] | undefined;
      if (declared === undefined) continue;
      const headersOf = (status: string) => Object.keys(operation.responses[status]?.headers ?? {});
      for (const status of ["401", "429", "503"].filter((code) => operation.responses[code] !== undefined)) {
        expect(headersOf(status), `${operation.operationId} ${status}`).toContain(
          status === "401" ? "WWW-Authenticate" : "Retry-After",
        );
      }
      const budgeted = declared.scope !== null && operation["x-rate-limit"] !== undefined;
      const success = Object.keys(operation.responses).find((status) => status.startsWith("2"));
      expect(headersOf(success ?? "").includes("RateLimit-Remaining"), operation.operationId).toBe(budgeted);
    }
  });

  it("counts one update served under PUT and PATCH on one budget (docs/decisions/0011)", () => {
    const declared = Object.values(endpoints);
    for (const put of declared.filter((candidate) => candidate.method === "put")) {
      const patch = declared.find((candidate) => candidate.method === "patch" && candidate.path === put.path);
      if (patch !== undefined) expect(rateLimitSubject(patch), patch.operationId).toBe(rateLimitSubject(put));
    }
  });

  it("describes the answers given before any operation is routed: the parser's refusals, 413 included", () => {
    const description = (document as unknown as { info: { description: string } }).info.description;
    expect(parserRefusals.map((refusal) => refusal.status).sort()).toEqual([400, 408, 413, 417, 431]);
    for (const refusal of parserRefusals) {
      expect(description).toContain(`\`${refusal.status}\` ${refusal.message} (\`${refusal.errorCode}\`)`);
    }
  });

  it("declares the OAuth 2.0 flows with the eleven scopes of the contract", () => {
    const schemes = document.components["securitySchemes"] as { oauth2: { flows: Record<string, { scopes: object }> } };
    expect(Object.keys(schemes.oauth2.flows.clientCredentials!.scopes)).toHaveLength(11);
    expect(Object.keys(schemes.oauth2.flows.authorizationCode!.scopes)).toEqual(
      Object.keys(schemes.oauth2.flows.clientCredentials!.scopes),
    );
  });

  it("passes Spectral's oas ruleset with no errors", () => {
    const root = join(import.meta.dirname, "..");
    const output = join(mkdtempSync(join(tmpdir(), "spectral-")), "results.json");
    const result = spawnSync(
      join(root, "node_modules", ".bin", "spectral"),
      [
        "lint",
        "openapi.json",
        "--ruleset",
        ".spectral.yaml",
        "--fail-severity",
        "error",
        "--format",
        "json",
        "--output",
        output,
      ],
      { cwd: root, encoding: "utf8" },
    );
    const problems = JSON.parse(readFileSync(output, "utf8")) as Array<{
      severity: number;
      code: string;
      message: string;
      path: string[];
    }>;
    expect(problems.filter((problem) => problem.severity === 0)).toEqual([]);
    expect(result.status).toBe(0);
  }, 180_000);
});
