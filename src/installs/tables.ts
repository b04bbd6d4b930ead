// Installs of apps in a tenant (spec part 1 §2.6, §4.8): the install itself, the former names it still
// answers to, and its sealed secrets. Names and aliases share one namespace per tenant: each table has
// its own unique index, and every write that takes a name first takes the tenant's install lock
// (service.ts lockTenantInstalls) and checks both tables, so no name can appear in both.
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

export type AutoUpgrade = 'off' | 'compatible';

export const appInstalls = pgTable(
  'app_installs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    name: text('name').notNull(),
    /** The catalogue app's name (app_versions.name). */
    appName: text('app_name').notNull(),
    versionId: uuid('version_id').notNull(),
    autoUpgrade: text('auto_upgrade').$type<AutoUpgrade>().notNull().default('off'),
    /** The version the last automatic upgrade left (the upgrades issue sets it). */
    upgradedFromVersionId: uuid('upgraded_from_version_id'),
    enabled: boolean('enabled').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    /** The approved hosts, as installHosts computed them at the last save. */
    hosts: jsonb('hosts').$type<string[]>().notNull(),
    /** The install's own circuit settings; null: the deployment's (APP_CIRCUIT_*). */
    circuitFailureThreshold: integer('circuit_failure_threshold'),
    circuitOpenSeconds: integer('circuit_open_seconds'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('app_installs_tenant_name').on(t.tenantId, t.name),
    index('app_installs_tenant_app_idx').on(t.tenantId, t.appName),
  ],
);

/** Former names an install still answers to (rename.ts writes them; at most 5 per install). */
export const appInstallAliases = pgTable(
  'app_install_aliases',
  {
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id')
      .notNull()
      .references(() => appInstalls.id, { onDelete: 'cascade' }),
    alias: text('alias').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    unique('app_install_aliases_tenant_alias').on(t.tenantId, t.alias),
    index('app_install_aliases_install_idx').on(t.installId),
  ],
);

/** Sealed secret values (seal.ts: AES-256-GCM bound to tenant, install id and name). */
export const appInstallSecrets = pgTable(
  'app_install_secrets',
  {
    installId: uuid('install_id')
      .notNull()
      .references(() => appInstalls.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    name: text('name').notNull(),
    sealed: bytea('sealed').notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'app_install_secrets_pk', columns: [t.installId, t.name] })],
);
