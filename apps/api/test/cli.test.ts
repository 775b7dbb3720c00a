/**
 * The admin CLI as an administrator runs it: a separate process against the
 * same database as the api. Its `tenant create` output is enough to get a
 * token and read the company profile.
 */
import { describe, expect, it } from "vitest";
import { cliRunner } from "./support/cli-process.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const runCli = cliRunner(t.databaseUrl);
const cli = (...args: string[]) => runCli(args);

describe("the admin CLI", () => {
  it("creates a tenant whose client gets a token and reads its company profile", async () => {
    const run = await cli("tenant", "create", "--name", "Cli Tenant");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const tenant = JSON.parse(run.stdout) as Record<string, string>;
    expect(Object.keys(tenant).sort()).toEqual([
      "campaign_api_reference",
      "client_id",
      "client_secret",
      "company_id",
      "creditor_id",
      "sandbox",
      "scopes",
      "timeline_id",
      "user_email",
      "user_password",
    ]);

    const tokenResponse = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: tenant["client_id"]!,
      client_secret: tenant["client_secret"]!,
      scope: "company:read",
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const profile = await t.get("/external-api/v1/company/profile", token);
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { data: { id: string; name: string } }).data).toMatchObject({
      id: tenant["company_id"],
      name: "Cli Tenant",
    });
  });

  it("makes sandbox tenants and companies with their own clock, and says which are", async () => {
    const live = JSON.parse((await cli("tenant", "create", "--name", "Live Tenant")).stdout) as { company_id: string; sandbox: boolean };
    expect(live.sandbox).toBe(false);
    const before = Date.now();
    const sandbox = JSON.parse((await cli("tenant", "create", "--name", "Sandbox Tenant", "--sandbox")).stdout) as {
      company_id: string;
      sandbox: boolean;
    };
    expect(sandbox.sandbox).toBe(true);
    const company = await cli("company", "create", "--name", "Sandbox Company", "--sandbox");
    expect(company.stderr).toBe("");
    const created = JSON.parse(company.stdout) as { id: string; sandbox: boolean; sandbox_now: string };
    expect(created.sandbox).toBe(true);
    expect(Date.parse(created.sandbox_now)).toBeGreaterThanOrEqual(before - 1000);
    const plain = JSON.parse((await cli("company", "create", "--name", "Plain Company")).stdout) as Record<string, unknown>;
    expect(plain).toMatchObject({ sandbox: false, sandbox_now: null });

    const { ids } = t.api.services;
    const rows = await t.db
      .selectFrom("companies")
      .select(["id", "sandbox", "sandbox_now"])
      .where("id", "in", [live.company_id, sandbox.company_id, created.id].map((id) => ids.decode("company", id)!))
      .orderBy("id")
      .execute();
    expect(rows.map((row) => [row.sandbox, row.sandbox_now === null])).toEqual([
      [false, true],
      [true, false],
      [true, false],
    ]);
    expect(rows[1]!.sandbox_now!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("prints ids the api accepts, and shows a client secret only at creation", async () => {
    const company = JSON.parse((await cli("company", "create", "--name", "Cli Company")).stdout) as { id: string };
    const created = await cli("client", "create", "--company", company.id, "--name", "ERP sync", "--scopes", "debts:read debts:write");
    expect(created.code).toBe(0);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string; scopes: string };
    expect(client.scopes).toBe("debts:read debts:write");
    const listed = JSON.parse((await cli("client", "list", "--company", company.id)).stdout) as { clients: Array<Record<string, unknown>> };
    expect(listed.clients).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(client.client_secret);

    const revoked = await cli("client", "revoke", "--client-id", client.client_id);
    expect(revoked.code).toBe(0);
    const refused = await t.tokenResponse({ grant_type: "client_credentials", client_id: client.client_id, client_secret: client.client_secret });
    expect(refused.status).toBe(401);
  });

  it("fails with a message on stderr and a non-zero exit for bad input", async () => {
    const unknownCompany = await cli("client", "list", "--company", "not-an-id");
    expect(unknownCompany.code).toBe(2);
    expect(unknownCompany.stdout).toBe("");
    expect(unknownCompany.stderr).toBe("--company: no company with id not-an-id\n");
    const badScope = await cli("client", "create", "--company", "x", "--name", "n", "--scopes", "debts:read");
    expect(badScope.code).toBe(2);
    const unknownCommand = await cli("bogus", "thing");
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/^unknown command: bogus thing/);
    // A second redirect URI after one flag is an extra argument, named as such (the flag repeats per URI).
    const extra = await cli("client", "create", "--company", "x", "--name", "n", "--redirect-uri", "https://a.example/cb", "https://b.example/cb");
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^unexpected argument after client create: https:\/\/b\.example\/cb\n/);
  });

  it("refuses a redirect URI with a fragment, an empty one too (RFC 6749 3.1.2)", async () => {
    const company = JSON.parse((await cli("company", "create", "--name", "Fragment Co")).stdout) as { id: string };
    for (const uri of ["https://a.example/cb#", "https://a.example/cb#section", "https://a.example/cb?x=1#"]) {
      const run = await cli("client", "create", "--company", company.id, "--name", "n", "--scopes", "debts:read", "--redirect-uri", uri);
      expect(run.code, uri).toBe(2);
      expect(run.stderr).toBe(`--redirect-uri: a redirect URI may not have a fragment: ${uri}\n`);
    }
    const listed = JSON.parse((await cli("client", "list", "--company", company.id)).stdout) as { clients: unknown[] };
    expect(listed.clients).toEqual([]);
  });
});
