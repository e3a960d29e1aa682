// jest globalTeardown: stops what global-setup.js started for the run and removes its folder.
const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const state = globalThis.__ACCT_TEST_SERVICES__;
  if (!state) return;
  for (const s of state.started.reverse()) await s.stop().catch(() => undefined);
  fs.rmSync(state.dir, { recursive: true, force: true });
};
