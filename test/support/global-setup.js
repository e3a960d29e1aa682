// jest globalSetup (every config: unit/integration/e2e and faults): on a machine where nothing answers
// on Postgres' and NATS's default local ports, and TEST_PG_URL / NATS_URL are not set, start an
// embedded Postgres (a fresh cluster under the temp folder) and a nats-server of our own for the run.
// Every suite still takes its own database and NATS prefix on them. Workers inherit the env set here.
// CI and dev machines with the services running use those, as before. Needs the build (npm test
// runs tsc -b first).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function globalSetup() {
  const { localPostgres, localNats, LocalServiceError } = require('../../tools/stack/dist/local-services.js');
  const started = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-test-services-'));
  fs.chmodSync(dir, 0o755); // an embedded Postgres run as the postgres user (when root) must reach its data dir
  try {
    if (!process.env.TEST_PG_URL) {
      const pg = await localPostgres({ env: {}, dataDir: path.join(dir, 'postgres'), database: 'postgres' });
      if (pg.origin === 'started') {
        started.push(pg);
        process.env.TEST_PG_URL = pg.url;
        process.stdout.write(`\n[tests] ${pg.describe}\n`);
      }
    }
    if (!process.env.NATS_URL) {
      const nats = await localNats({
        env: { PATH: process.env.PATH, NATS_SERVER_BIN: process.env.NATS_SERVER_BIN },
        storeDir: path.join(dir, 'nats'),
        logFile: path.join(dir, 'nats-server.log'),
      });
      if (nats.origin === 'started') {
        started.push(nats);
        process.env.NATS_URL = nats.url;
        process.stdout.write(`[tests] ${nats.describe}\n`);
      }
    }
  } catch (e) {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    if (e instanceof LocalServiceError) throw new Error(`tests need Postgres and NATS: ${e.message}`);
    throw e;
  }
  globalThis.__ACCT_TEST_SERVICES__ = { started, dir };
};
