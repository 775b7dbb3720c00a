/**
 * A CommonJS integration (what `npm init -y` creates: `"type": "commonjs"`)
 * loading the two ES-module packages, both entries of the client, with
 * `require`, as Node allows from 20.19 and 22.12 (test/consumer-install.test.ts
 * copies this file into a project outside the repository and runs it with
 * `node`). TypeScript's
 * `nodenext` accepts such an import; the packages' `exports` must let Node
 * resolve it too.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is what this file tests */
const { createClient } = require("@dc/client");
const { prevalidateSnapshot } = require("@dc/client/snapshots");
const { Snapshot } = require("@dc/domain");

const refused = prevalidateSnapshot([{ internal_id: "ACC-1", remaining_amount: -1, currency: "EUR" }]);
process.stdout.write(`require: ${typeof createClient} ${Snapshot.MAX_ROWS} ${refused?.errorCode}\n`);
