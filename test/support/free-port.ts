// The same free-port choice the platform makes for its embedded database.
export { freePort } from '../../src/db/embedded-setup.ts';
