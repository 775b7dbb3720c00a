/**
 * One step to try the API: a company with an admin user, a creditor, its
 * default timeline (`standardDefinition`), a campaign and an OAuth client
 * holding every scope. A sandbox tenant's company sends nothing out and runs
 * on its own clock (docs/decisions/0621).
 */
import { randomBytes } from "node:crypto";
import { allScopes } from "@dc/contract";
import type { Db } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";
import { createCampaign, createCreditor, createTimeline } from "./collection-setup.ts";
import { standardDefinition } from "./timelines.ts";
import { createCompany, createUser } from "./companies.ts";
import { createClient } from "./oauth-clients.ts";

export interface CreatedTenant {
  readonly company_id: string;
  readonly user_email: string;
  readonly user_password: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly scopes: string;
  readonly creditor_id: string;
  readonly timeline_id: string;
  readonly campaign_api_reference: string;
  readonly sandbox: boolean;
}

export interface TenantOptions {
  /** Makes a sandbox company whose clock starts at `now`. */
  readonly sandbox?: boolean;
  readonly now?: Date;
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "tenant";

export const createTenant = async (db: Db, ids: Ids, name: string, options: TenantOptions = {}): Promise<CreatedTenant> => {
  const suffix = randomBytes(3).toString("hex");
  const email = `admin+${suffix}@${slug(name)}.example`;
  const password = randomBytes(12).toString("base64url");
  const now = options.now ?? new Date();
  const company = await createCompany(db, { name, email, sandboxNow: options.sandbox === true ? now : undefined });
  await createUser(db, { companyId: company.id, email, password, role: "admin" });
  const creditor = await createCreditor(db, { companyId: company.id, name: `${name} Receivables` });
  const timeline = await createTimeline(db, company.id, "Standard collection", standardDefinition, { isDefault: true, now });
  const campaign = await createCampaign(db, {
    companyId: company.id,
    apiReference: `${slug(name)}-${suffix}`,
    name: "Default campaign",
    creditorId: creditor.id,
    timelineId: timeline.id,
  });
  const client = await createClient(db, {
    companyId: company.id,
    name: `${name} integration`,
    scopes: allScopes,
    redirectUris: ["http://localhost:8080/callback"],
  });
  return {
    company_id: ids.encode("company", company.id),
    user_email: email,
    user_password: password,
    client_id: client.client_id,
    client_secret: client.client_secret,
    scopes: client.allowed_scopes.join(" "),
    creditor_id: ids.encode("creditor", creditor.id),
    timeline_id: ids.encode("timeline", timeline.id),
    campaign_api_reference: campaign.api_reference,
    sandbox: company.sandbox,
  };
};
