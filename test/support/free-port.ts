// Kept only for test/faults/database.fault.ts, which is being rewritten elsewhere: remove once it imports lib/free-port.ts.
export { freePort } from '../../lib/free-port.ts';
