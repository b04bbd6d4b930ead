// Every domain owns its tables; this file only gathers them for Drizzle and drizzle-kit.
export * from '../audit/tables.ts';
export * from '../callbacks/tables.ts';
export * from '../calls/tables.ts';
export * from '../catalogue/tables.ts';
export * from '../installs/tables.ts';
export * from '../notifications/tables.ts';
export * from '../runs/tables.ts';
export * from '../tenants/tables.ts';
