/**
 * The admin CLI's commands: each takes parsed flags and returns the JSON
 * object to print, or throws CliError with the message for stderr.
 */
import { findCampaignByReference, findFirstCreditor, findUserByEmail } from "@dc/db";
import { createCampaign, createCreditor } from "../admin/collection-setup.ts";
import { createCompany, createUser } from "../admin/companies.ts";
import { createClient, listClients, parseScopes, redirectUriProblem, revokeClient } from "../admin/oauth-clients.ts";
import { createTenant } from "../admin/tenants.ts";
import { CliError, type Command, companyRowOf, existingId, flag, list, required, text } from "./command-kit.ts";
import { timelineCommands } from "./timeline-commands.ts";

export { CliError, type CommandContext, type Flags } from "./command-kit.ts";

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const commands: Readonly<Record<string, Command>> = {
  "tenant create": async (context, flags) => ({
    ...(await createTenant(context.db, context.ids, required(flags, "name"), { sandbox: flag(flags, "sandbox"), now: context.now() })),
  }),

  "company create": async (context, flags) => {
    const company = await createCompany(context.db, {
      name: required(flags, "name"),
      email: text(flags, "email"),
      phone: text(flags, "phone"),
      sandboxNow: flag(flags, "sandbox") ? context.now() : undefined,
    });
    return {
      id: context.ids.encode("company", company.id),
      name: company.name,
      email: company.email,
      phone: company.phone,
      sandbox: company.sandbox,
      sandbox_now: company.sandbox_now?.toISOString() ?? null,
      created_at: company.created_at.toISOString(),
    };
  },

  "user create": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const email = required(flags, "email");
    if (!emailPattern.test(email)) throw new CliError(`--email: not an e-mail address: ${email}`);
    const password = required(flags, "password");
    if (password.length < 12) throw new CliError("--password: at least 12 characters");
    const role = text(flags, "role") ?? "member";
    if (role !== "admin" && role !== "member") throw new CliError("--role: admin or member");
    const existing = await findUserByEmail(context.db, email.toLowerCase());
    if (existing !== undefined) throw new CliError(`a user with e-mail ${email} already exists`);
    const user = await createUser(context.db, { companyId, email, password, role });
    return { id: context.ids.encode("user", user.id), company_id: context.ids.encode("company", companyId), email: user.email, role: user.role };
  },

  "client create": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const { scopes, unknown } = parseScopes(required(flags, "scopes"));
    if (unknown.length > 0) throw new CliError(`--scopes: unknown scope ${unknown.join(", ")}`);
    if (scopes.length === 0) throw new CliError("--scopes: at least one scope");
    const redirectUris = list(flags, "redirect-uri");
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem !== undefined) throw new CliError(`--redirect-uri: ${problem}`);
    }
    const client = await createClient(context.db, { companyId, name: required(flags, "name"), scopes, redirectUris });
    return {
      client_id: client.client_id,
      client_secret: client.client_secret,
      name: client.name,
      company_id: context.ids.encode("company", companyId),
      scopes: client.allowed_scopes.join(" "),
      redirect_uris: client.redirect_uris,
      created_at: client.created_at.toISOString(),
    };
  },

  "client list": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const clients = await listClients(context.db, companyId);
    return {
      company_id: context.ids.encode("company", companyId),
      clients: clients.map((client) => ({
        client_id: client.client_id,
        name: client.name,
        scopes: client.allowed_scopes.join(" "),
        redirect_uris: client.redirect_uris,
        created_at: client.created_at.toISOString(),
        revoked_at: client.revoked_at?.toISOString() ?? null,
      })),
    };
  },

  "client revoke": async (context, flags) => {
    const clientId = required(flags, "client-id");
    const revoked = await revokeClient(context.db, clientId, context.now());
    if (revoked === undefined) throw new CliError(`no active client with id ${clientId}`);
    return { client_id: revoked.client_id, revoked_at: revoked.revoked_at?.toISOString() ?? null };
  },

  "creditor create": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const creditor = await createCreditor(context.db, {
      companyId,
      name: required(flags, "name"),
      email: text(flags, "email"),
      phone: text(flags, "phone"),
      country: text(flags, "country"),
    });
    return { id: context.ids.encode("creditor", creditor.id), company_id: context.ids.encode("company", companyId), name: creditor.name };
  },

  "campaign create": async (context, flags) => {
    const companyId = await existingId(context, flags, "company", "company", "companies");
    const timelineId = await existingId(context, flags, "timeline", "timeline", "timelines");
    await companyRowOf(context, companyId, "timelines", timelineId, "timeline");
    let creditorId: number;
    if (text(flags, "creditor") !== undefined) {
      creditorId = await existingId(context, flags, "creditor", "creditor", "creditors");
      await companyRowOf(context, companyId, "creditors", creditorId, "creditor");
    } else {
      const first = await findFirstCreditor(context.db, companyId);
      if (first === undefined) throw new CliError("the company has no creditor: create one first or pass --creditor");
      creditorId = first;
    }
    const apiReference = required(flags, "api-reference");
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(apiReference)) throw new CliError("--api-reference: 1 to 100 of A-Z a-z 0-9 . _ -");
    const taken = await findCampaignByReference(context.db, companyId, apiReference);
    if (taken !== undefined) throw new CliError(`--api-reference: ${apiReference} is already used by this company`);
    const campaign = await createCampaign(context.db, {
      companyId,
      apiReference,
      name: text(flags, "name") ?? apiReference,
      creditorId,
      timelineId,
    });
    return {
      id: context.ids.encode("campaign", campaign.id),
      api_reference: campaign.api_reference,
      name: campaign.name,
      company_id: context.ids.encode("company", companyId),
      timeline_id: context.ids.encode("timeline", timelineId),
      creditor_id: context.ids.encode("creditor", creditorId),
    };
  },
  ...timelineCommands,
};
