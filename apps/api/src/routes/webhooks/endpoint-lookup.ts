/** The lookups every endpoint operation shares: the public id decoded and the company's endpoint found, or a 404. */
import { webhookMessages } from "@dc/contract";
import { type Db, type EndpointRow, findEndpoint } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { DomainIds as Ids } from "@dc/db";

/** The internal id of a company's endpoint from its public id, or a 404. */
export const endpointIdOf = (ids: Ids, publicId: string): number => {
  const id = ids.decode("webhook_endpoint", publicId);
  if (id === undefined) throw new NotFound({ message: webhookMessages.endpointNotFound });
  return id;
};

/** The endpoint `id` of `companyId` (locked for update when `forUpdate`), or a 404. */
export const findEndpointOr404 = async (
  db: Db,
  companyId: number,
  id: number,
  options: { readonly forUpdate?: boolean } = {},
): Promise<EndpointRow> => {
  const row = await findEndpoint(db, companyId, id, options);
  if (row === undefined) throw new NotFound({ message: webhookMessages.endpointNotFound });
  return row;
};
