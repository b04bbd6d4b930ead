import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** The platform's version, from package.json. */
export const PLATFORM_VERSION: string = (require('../package.json') as { version: string }).version;
