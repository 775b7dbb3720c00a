/** The CLI's help text. */
export const usage = `Usage: pnpm --silent cli <command> [flags]

Prints one JSON object on stdout; on error, a message on stderr and a non-zero exit.
Ids are the encrypted ids the API uses.

  tenant create --name N [--sandbox]
  company create --name N [--email E] [--phone P] [--sandbox]
  user create --company ID --email E --password P [--role admin|member]
  client create --company ID --name N --scopes "debts:read debts:write ..." [--redirect-uri URL ...]
  client list --company ID
  client revoke --client-id X
  creditor create --company ID --name N [--email E] [--phone P] [--country C]
  timeline create --company ID --name N [--default] [--file DEFINITION.json]
  timeline update --timeline ID [--name N] [--default] [--file DEFINITION.json]
  timeline show --timeline ID [--version V]
  campaign create --company ID --api-reference R --timeline ID [--creditor ID] [--name N]
  mail list [--to TEXT] [--limit N] [--dir D]     e-mails the development capture server received, newest first
  mail show ID [--dir D]                          one captured e-mail: envelope, headers, text and HTML

--sandbox makes a sandbox company: nothing it sends leaves the machine, and it
runs on its own clock (docs/sandbox.md). A timeline definition is JSON, read
from --file or standard input (docs/timelines.md); \`timeline update\` writes a
new version, which debts already on the timeline take only when they restart.

The database is DATABASE_URL, or the embedded development database (started
here when it is not already running). The mail commands read the capture
directory of \`pnpm start\` (.data/mail) and need no database.`;
