// The client types generated from /openapi.json (`npm run openapi:types`): one file, the console's, serves
// the console and the tests alike.
export type { components, operations, paths } from '../../console/src/api/schema.ts';
