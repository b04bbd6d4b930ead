// The operator's blocks (docs/operations.md "ops apps …"): setting one (a module by hash, or every version
// of a publisher's app) and lifting it, each in one transaction with its audit records and notifications.
// Every action that touches a module reads the blocks as it runs (blocks.ts), so a block holds from its
// commit, with no restart.
//
// A block writes `app.module.blocked` in the instance trail (the block) and, for each install running a
// version it covers, in that install's tenant trail (which raises the outbound event of that name) with an
// `app_blocked` notification to the tenant's holders of apps:write. A lift writes `app.module.unblocked`
// the same way, without notification or event. Blocking what an unlifted block already stops (the same
// hash, or the same publisher's same app) is 409 conflict naming that block.
import { desc, eq, isNull, sql } from 'drizzle-orm';
import { operatorActor } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import { conflict, notFound, validationError } from '../http/errors.ts';
import { notify } from '../notifications/index.ts';
import { findTenantById } from '../tenants/service.ts';
import { tenants } from '../tenants/tables.ts';
import { type RunningInstall, type RunningInstalls, versionsCoveredBy } from './operator-installs.ts';
import { type BlockScope, isUuid, rollbackCandidates, sameTarget, scopeOf } from './operator-rules.ts';
import { appBlocks, appVersions } from './tables.ts';

type BlockRow = typeof appBlocks.$inferSelect;

/** What a block stops: a module by its hash, or every version of a publisher's app. */
export type BlockTargetInput =
  | { sha256: string }
  | { publisher: 'platform'; appName: string }
  | { publisher: 'tenant'; tenantId: string; appName: string };

export interface NewBlock {
  target: BlockTargetInput;
  reason: string;
  /** The operator's name, as given with --by. */
  by: string;
}

export interface BlockView {
  id: string;
  scope: BlockScope;
  sha256: string | null;
  publisher: 'platform' | 'tenant' | null;
  tenantId: string | null;
  /** The publishing tenant's name (an app block of a tenant's app). */
  tenant: string | null;
  appName: string | null;
  reason: string;
  createdBy: string;
  createdAt: string;
  liftedBy: string | null;
  liftedAt: string | null;
}

export interface BlockOutcome {
  block: BlockView;
  /** The installs running a version the block covers (stopped by a block, freed by a lift). */
  installs: RunningInstall[];
  /** Of those, the installs the automatic upgrades must roll back (a block only; empty for a lift). */
  rollback: string[];
}

/** Reports the writes of a long change: `done` of `total` installs. */
export type Progress = (done: number, total: number) => void;

const SHA256 = /^[0-9a-f]{64}$/;
const APP_NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;
export const MAX_REASON_LENGTH = 1000;

/** Serializes the operator's block writes, so two equal blocks set at once cannot both pass the check. */
const BLOCK_LOCK = 5_301_884_207;

export function blockView(row: BlockRow, tenant: string | null): BlockView {
  return {
    id: row.id,
    scope: scopeOf(row),
    sha256: row.sha256,
    publisher: row.publisher,
    tenantId: row.publisherTenantId,
    tenant,
    appName: row.appName,
    reason: row.reason,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    liftedBy: row.liftedBy,
    liftedAt: row.liftedAt?.toISOString() ?? null,
  };
}

function assertNewBlock(request: NewBlock) {
  const issues = [];
  const { target } = request;
  if ('sha256' in target && !SHA256.test(target.sha256))
    issues.push({ path: '/sha256', message: 'must be 64 lower-case hex characters' });
  if ('appName' in target && !APP_NAME.test(target.appName))
    issues.push({ path: '/appName', message: 'must be an app name' });
  const length = [...request.reason].length;
  if (length < 1 || length > MAX_REASON_LENGTH)
    issues.push({ path: '/reason', message: `must be 1 to ${MAX_REASON_LENGTH} characters` });
  if (issues.length > 0) throw validationError(issues, 'not a block');
}

const tenantName = async (db: Queryable, id: string | null) =>
  id === null ? null : ((await findTenantById(db, id))?.name ?? null);

/**
 * Every tenant a block concerns (the instance record's data.tenantIds): those publishing a version it
 * covers and those whose installs run one.
 */
async function tenantsConcerned(tx: Tx, block: BlockRow, installs: readonly RunningInstall[]) {
  const publishers = await tx
    .selectDistinct({ tenantId: appVersions.tenantId })
    .from(appVersions)
    .where(versionsCoveredBy(block));
  const ids = new Set<string>(installs.map((i) => i.tenantId));
  for (const { tenantId } of publishers) if (tenantId !== null) ids.add(tenantId);
  return [...ids].sort();
}

/** What the tenant's trail (and the event) says of one install: exactly these fields. */
const installData = (install: RunningInstall, block: BlockRow) => ({
  name: install.name,
  appName: install.appName,
  versionId: install.versionId,
  version: install.version,
  sha256: install.sha256,
  scope: scopeOf(block),
  reason: block.reason,
});

/** The instance trail's record of a block or its lift. */
const instanceData = (block: BlockRow, installs: readonly RunningInstall[], tenantIds: string[]) => ({
  blockId: block.id,
  scope: scopeOf(block),
  sha256: block.sha256,
  publisher: block.publisher,
  publisherTenantId: block.publisherTenantId,
  appName: block.appName,
  reason: block.reason,
  installs: installs.length,
  tenantIds,
});

/**
 * Sets a block. 409 conflict when an unlifted block already stops the same target; 404 not_found for an
 * unknown publishing tenant; 400 validation_error for a malformed hash, app name or reason.
 */
export async function setBlock(
  database: Database,
  installsOf: RunningInstalls,
  request: NewBlock,
  progress: Progress = () => {},
): Promise<BlockOutcome> {
  assertNewBlock(request);
  const { target } = request;
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${BLOCK_LOCK})`);
    const values = {
      sha256: 'sha256' in target ? target.sha256 : null,
      publisher: 'sha256' in target ? null : target.publisher,
      publisherTenantId: 'tenantId' in target ? target.tenantId : null,
      appName: 'appName' in target ? target.appName : null,
    };
    const publisherName = await tenantName(tx, values.publisherTenantId);
    if (values.publisherTenantId !== null && publisherName === null) throw notFound('no tenant has that id');
    const standing = await tx.select().from(appBlocks).where(isNull(appBlocks.liftedAt));
    const same = standing.find((row) => sameTarget(row, values));
    if (same) throw conflict('an unlifted block already stops this', { blockId: same.id });
    const [block] = (await tx
      .insert(appBlocks)
      .values({ ...values, reason: request.reason, createdBy: request.by })
      .returning()) as [BlockRow];
    const installs = await installsOf.running(tx, versionsCoveredBy(block));
    const actor = operatorActor(request.by);
    for (const [i, install] of installs.entries()) {
      const data = installData(install, block);
      const resource = { type: 'app_install', id: install.id };
      await recordAudit(tx, {
        tenantId: install.tenantId,
        action: 'app.module.blocked',
        actor,
        resource,
        data,
      });
      await notify(tx, {
        tenantId: install.tenantId,
        kind: 'app_blocked',
        audiencePermission: 'apps:write',
        resource,
        data,
      });
      progress(i + 1, installs.length);
    }
    await recordAudit(tx, {
      tenantId: null,
      action: 'app.module.blocked',
      actor,
      resource: { type: 'app_block', id: block.id },
      data: instanceData(block, installs, await tenantsConcerned(tx, block, installs)),
    });
    return { block: blockView(block, publisherName), installs, rollback: rollbackCandidates(installs) };
  });
}

/** Lifts a block: 404 not_found for an unknown id, 409 conflict for one already lifted. */
export async function liftBlock(
  database: Database,
  installsOf: RunningInstalls,
  request: { blockId: string; by: string },
  progress: Progress = () => {},
): Promise<BlockOutcome> {
  if (!isUuid(request.blockId)) throw notFound('no block has that id');
  return database.db.transaction(async (tx) => {
    const [found] = await tx.select().from(appBlocks).where(eq(appBlocks.id, request.blockId)).for('update');
    if (!found) throw notFound('no block has that id');
    if (found.liftedAt !== null)
      throw conflict(`the block was already lifted by ${found.liftedBy}`, { blockId: found.id });
    const [block] = (await tx
      .update(appBlocks)
      .set({ liftedBy: request.by, liftedAt: new Date() })
      .where(eq(appBlocks.id, found.id))
      .returning()) as [BlockRow];
    const installs = await installsOf.running(tx, versionsCoveredBy(block));
    const actor = operatorActor(request.by);
    for (const [i, install] of installs.entries()) {
      await recordAudit(tx, {
        tenantId: install.tenantId,
        action: 'app.module.unblocked',
        actor,
        resource: { type: 'app_install', id: install.id },
        data: installData(install, block),
      });
      progress(i + 1, installs.length);
    }
    await recordAudit(tx, {
      tenantId: null,
      action: 'app.module.unblocked',
      actor,
      resource: { type: 'app_block', id: block.id },
      data: instanceData(block, installs, await tenantsConcerned(tx, block, installs)),
    });
    return { block: blockView(block, await tenantName(tx, block.publisherTenantId)), installs, rollback: [] };
  });
}

export interface ListedBlock extends BlockView {
  /** The installs running a version the block covers, now. */
  installs: number;
}

/** Blocks newest first: the unlifted ones, or every one with `all`. */
export async function listBlocks(
  db: Queryable,
  installsOf: RunningInstalls,
  options: { all: boolean },
): Promise<ListedBlock[]> {
  const rows = await db
    .select({ block: appBlocks, tenant: tenants.name })
    .from(appBlocks)
    .leftJoin(tenants, eq(tenants.id, appBlocks.publisherTenantId))
    .where(options.all ? undefined : isNull(appBlocks.liftedAt))
    .orderBy(desc(appBlocks.createdAt), desc(appBlocks.id));
  const listed: ListedBlock[] = [];
  for (const { block, tenant } of rows) {
    const installs = await installsOf.running(db, versionsCoveredBy(block));
    listed.push({ ...blockView(block, tenant), installs: installs.length });
  }
  return listed;
}
