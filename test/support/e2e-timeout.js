// An e2e file starts a whole stack (6 services, a gateway, a database, `npm run admin` twice) in its
// beforeAll: on a loaded 2-core machine that can pass the 60 s every other tier gets. A slow start
// is not a failure; a hang still is, after 3 minutes.
jest.setTimeout(180_000);
