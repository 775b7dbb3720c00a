/** Records the grant made from a redeemed authorization code, so that a replay of the code revokes it. */
import type { DbTransaction } from "../executor.ts";

export const linkAuthorizationCodeGrant = async (
  trx: DbTransaction,
  codeId: number,
  grantId: number,
): Promise<void> => {
  await trx.updateTable("oauth_authorization_codes").set({ grant_id: grantId }).where("id", "=", codeId).execute();
};
