// Installs of apps in a tenant (docs/installs.md): the install itself, the former names it still
// answers to, and its sealed secrets. Names and aliases share one namespace per tenant: each table has
// its own unique index, and every write that takes a name first takes the tenant's install lock
// (service.ts lockTenantInstalls) and checks both tables, so no name can appear in both.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from '../db/columns.ts';

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
    /**
     * Moves on every clear of the install's cached values (cache/cache.ts): a call stores its cache changes
     * only while the generation it read is still current, so a clear also holds for calls already running.
     */
    cacheGeneration: integer('cache_generation').notNull().default(0),
    /**
     * Moves whenever what an install change is asked against moves: version, config, hosts, enabled or
     * autoUpgrade. A trigger moves it (migration 0004), so every writer does, and a rename or a
     * circuit-settings save, which move updated_at only, leave an open change approvable.
     */
    revision: integer('revision').notNull().default(0),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
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
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    unique('app_install_aliases_tenant_alias').on(t.tenantId, t.alias),
    index('app_install_aliases_install_idx').on(t.installId),
  ],
);

/** Sealed secret values (secrets/seal.ts: AES-256-GCM bound to tenant, install id and name). */
export const appInstallSecrets = pgTable(
  'app_install_secrets',
  {
    installId: uuid('install_id')
      .notNull()
      .references(() => appInstalls.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    name: text('name').notNull(),
    sealed: bytea('sealed').notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'app_install_secrets_pk', columns: [t.installId, t.name] })],
);

export type ChangeOrigin = 'save' | 'auto_upgrade';
export type ChangeDecision = 'approved' | 'rejected' | 'withdrawn';

/**
 * Saves waiting for approval (docs/install-changes.md): the state the
 * save asked for, and the decision. At most one open change (decision null) per install.
 */
export const appInstallChanges = pgTable(
  'app_install_changes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    /**
     * Null once the install is gone: a rejected or withdrawn new install goes with its change, yet the
     * decided change stays listed. DELETE /app-installs/:install removes its changes explicitly.
     */
    installId: uuid('install_id').references(() => appInstalls.id, { onDelete: 'set null' }),
    /** The install's name when requested (the view shows the current one). */
    installName: text('install_name').notNull(),
    versionId: uuid('version_id').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    enabled: boolean('enabled').notNull(),
    /** autoUpgrade as the save asked for it, applied with the change. */
    autoUpgrade: text('auto_upgrade').$type<AutoUpgrade>().notNull(),
    hosts: jsonb('hosts').$type<string[]>().notNull(),
    hostsAdded: jsonb('hosts_added').$type<string[]>().notNull(),
    origin: text('origin').$type<ChangeOrigin>().notNull(),
    needsAdded: jsonb('needs_added').$type<string[]>().notNull().default([]),
    handlesAdded: jsonb('handles_added').$type<string[]>().notNull().default([]),
    newInstall: boolean('new_install').notNull(),
    /** The install's updated_at when requested (shown in the change view). */
    installUpdatedAt: timestamptz('install_updated_at').notNull(),
    /** The install's revision when requested: approval refuses install_changed when it moved since. */
    installRevision: integer('install_revision').notNull().default(0),
    /** The tenant's approval settings in force when requested, which the decision follows. */
    approvalRequired: boolean('approval_required').notNull(),
    fourEyes: boolean('four_eyes').notNull(),
    requestedBy: text('requested_by').notNull(),
    requestedByName: text('requested_by_name'),
    requestedAt: timestamptz('requested_at').notNull().defaultNow(),
    comment: text('comment'),
    decidedBy: text('decided_by'),
    decidedAt: timestamptz('decided_at'),
    decision: text('decision').$type<ChangeDecision>(),
    decisionComment: text('decision_comment'),
  },
  (t) => [
    uniqueIndex('app_install_changes_one_open').on(t.installId).where(sql`${t.decision} is null`),
    index('app_install_changes_tenant_idx').on(t.tenantId, t.decision, t.requestedAt),
  ],
);

export type BudgetMetric = 'calls' | 'http_requests' | 'spend';
export type BudgetPeriod = 'day' | 'month';
/** Every metric and period a budget may name, in the order lists show them (calls/quotas.ts sorts by them). */
export const BUDGET_METRICS: readonly BudgetMetric[] = ['calls', 'http_requests', 'spend'];
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'month'];
export interface Budget {
  metric: BudgetMetric;
  period: BudgetPeriod;
  max: number;
}

/** An install's limits record; no row: no currency, no prices, no budgets. */
export const appInstallLimits = pgTable('app_install_limits', {
  installId: uuid('install_id')
    .primaryKey()
    .references(() => appInstalls.id, { onDelete: 'cascade' }),
  tenantId: uuid('tenant_id').notNull(),
  /** ISO 4217 code, or null. */
  currency: text('currency'),
  /** Micros of the currency per call, by action name. */
  prices: jsonb('prices').$type<Record<string, number>>().notNull().default({}),
  budgets: jsonb('budgets').$type<Budget[]>().notNull().default([]),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

/**
 * Cached values of an install (docs/cached-values.md "Storage"), sealed like
 * secrets (secrets/seal.ts cacheBinding). size_bytes is the value's UTF-8 length, for the budget.
 */
export const appInstallCache = pgTable(
  'app_install_cache',
  {
    installId: uuid('install_id')
      .notNull()
      .references(() => appInstalls.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    name: text('name').notNull(),
    sealed: bytea('sealed').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    /** Strictly increasing per write, so "written longest ago" has no ties. */
    writeSeq: bigint('write_seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [
    primaryKey({ name: 'app_install_cache_pk', columns: [t.installId, t.name] }),
    index('app_install_cache_written_idx').on(t.installId, t.writeSeq),
  ],
);

export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * An install's circuit (docs/calls.md "The circuit"): one row
 * per install once an outage has counted (no row: closed, no count, never moved), shared by every api and
 * worker process and moved only in the database's time (now()). Calls move it (circuit/circuit-store.ts);
 * the reset route closes it.
 */
export const appInstallCircuits = pgTable(
  'app_install_circuits',
  {
    installId: uuid('install_id')
      .primaryKey()
      .references(() => appInstalls.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    state: text('state').$type<CircuitState>().notNull().default('closed'),
    /** Outages in a row. */
    failures: integer('failures').notNull().default(0),
    /** When the state last moved; null while it never has. */
    since: timestamptz('since'),
    /** When it last opened: the open time, and a claimed trial's slot, count from here. */
    openedAt: timestamptz('opened_at'),
    /** The half-open trial: who claimed it, and when (its slot frees an open time later). */
    trialId: uuid('trial_id'),
    trialClaimedAt: timestamptz('trial_claimed_at'),
  },
  (t) => [index('app_install_circuits_tenant_state_idx').on(t.tenantId, t.state)],
);
