/** Records a consent-page login session of a user, by the hash of its cookie. */
import type { Db } from "../executor.ts";

export const insertLoginSession = async (
  db: Db,
  session: {
    readonly companyId: number;
    readonly userId: number;
    readonly tokenHash: Buffer;
    readonly now: Date;
    readonly expiresAt: Date;
  },
): Promise<void> => {
  await db
    .insertInto("oauth_login_sessions")
    .values({
      company_id: session.companyId,
      user_id: session.userId,
      token_hash: session.tokenHash,
      created_at: session.now,
      expires_at: session.expiresAt,
    })
    .execute();
};
