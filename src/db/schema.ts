// Every domain owns its tables; this file only gathers them for Drizzle and drizzle-kit.
export * from '../audit/tables.ts';
export * from '../calls/tables.ts';
export * from '../catalogue/tables.ts';
// Past the collections' front door: its index.ts loads the routes and services, which take the pool's
// types from this schema.
export * from '../collections/tables.ts';
// Past the documents' front door, as for installs below: its index.ts loads the store, which takes the
// pool's types from this schema.
export * from '../documents/tables.ts';
// Past the installs' front door: its index.ts would load every install service (which take the pool's
// types from this schema) and close a circle.
export * from '../installs/tables.ts';
export * from '../notifications/tables.ts';
// Past the outbound webhooks' front door, as for installs above: its index.ts loads the routes and services.
export * from '../outbound-webhooks/tables.ts';
export * from '../runs/definitions/approvals-tables.ts';
export * from '../runs/tables.ts';
export * from '../tenants/tables.ts';
// Past the callbacks' front door, as for installs below.
export * from '../vendor-sessions/tables.ts';
