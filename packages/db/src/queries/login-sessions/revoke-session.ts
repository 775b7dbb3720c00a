/** Ends a consent-page login session. */
import type { Db } from "../executor.ts";

export const revokeLoginSession = async (db: Db, sessionId: number, now: Date): Promise<void> => {
  await db.updateTable("oauth_login_sessions").set({ revoked_at: now }).where("id", "=", sessionId).execute();
};
