// The web process as the tests run it: server/main.ts with every JSON answer checked against the
// schema its route declares for its status (server/route.ts). A mismatch is logged and answered
// with a 500, so the test that met it fails. HOURGLASS_TEST_UNCHECKED_RESPONSES=1 switches the check
// off, for a test that stores in the database what no client could send.
import { runWebProcess } from '../../server/web.process.ts';

const unchecked = process.env.HOURGLASS_TEST_UNCHECKED_RESPONSES === '1';
await runWebProcess({
  checkResponses: unchecked
    ? undefined
    : (failure) => {
        console.error(JSON.stringify({ level: 50, msg: 'response does not match its declared schema', ...failure }));
      },
});
