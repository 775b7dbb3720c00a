/** A company user's wire form: the row's fields with the encrypted id; the query reads no credential. */
import type { Endpoints } from "@dc/contract";
import type { DomainIds as Ids, listUsers } from "@dc/db";

export type UserView = Endpoints["listCompanyUsers"]["success"]["schema"]["Type"]["data"][number];
type UserRow = Awaited<ReturnType<typeof listUsers>>["rows"][number];

export const presentUser = (ids: Ids, row: UserRow): UserView => ({ ...row, id: ids.encode("user", row.id) });
