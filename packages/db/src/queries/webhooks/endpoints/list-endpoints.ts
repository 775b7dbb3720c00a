/** A page of a company's webhook endpoints, oldest first, with their total (one statement). */
import type { Db } from "../../executor.ts";
import type { Keyset } from "../../keyset.ts";
import { type Page, pageOfRows, type PageRequest } from "../../page-of-rows.ts";
import { type EndpointRow, endpointColumns } from "./endpoint-columns.ts";

/** Oldest first: the primary key `(company_id, id)` serves a page after a key. */
export const endpointOrder: Keyset = [{ column: "id", direction: "asc", kind: "integer" }];

export const listEndpoints = (db: Db, companyId: number, page: PageRequest): Promise<Page<EndpointRow>> =>
  pageOfRows(
    db,
    db.selectFrom("webhook_endpoints").where("company_id", "=", companyId),
    (endpoints) => endpoints.select(endpointColumns),
    endpointOrder,
    page,
  );
