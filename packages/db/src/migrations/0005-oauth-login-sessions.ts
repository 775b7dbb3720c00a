/**
 * Login sessions of the OAuth consent page: a company user who signed in on
 * `/oauth/authorize` holds a random cookie whose SHA-256 is `token_hash`.
 * Sessions are short (an absolute `expires_at`), revocable (sign out), and
 * shared by every api process. The worker's purge task may delete rows past
 * `expires_at`.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create table oauth_login_sessions (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index oauth_login_sessions_user_idx on oauth_login_sessions (company_id, user_id);
create index oauth_login_sessions_expiry_idx on oauth_login_sessions (expires_at);
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists oauth_login_sessions;`.execute(db);
};
