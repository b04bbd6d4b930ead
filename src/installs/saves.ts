// Create and save an install (docs/installs.md; held saves: docs/install-changes.md "When a save
// waits"). A save applies at once (201 / 200), or, when the tenant requires approvals for apps and the save
// adds hosts, waits for a decision (202 { install, change }) while the install keeps serving as approved.
// Either way the install's open change is superseded. One transaction per save, the install row locked.
import { isDeepStrictEqual } from 'node:util';
import { count, eq } from 'drizzle-orm';
import { isUniqueViolation } from '../db/errors.ts';
import type { Tx } from '../db/pool.ts';
import { ApiError, validationError } from '../http/errors.ts';
import { clearCacheAfterSave } from './cache/cache.ts';
import { documentsMove, type InstallState } from './capabilities.ts';
import { type ChangeRow, type ChangeView, changeView, partAppliedAtOnce } from './changes/changes-rules.ts';
import {
  type ApprovalSettings,
  approvalSettingsOf,
  openChangeOf,
  requestChange,
  supersedeOpenChange,
} from './changes/changes-store.ts';
import { assertConfigured, type Planned, plan } from './plan.ts';
import {
  assertNameFree,
  audit,
  auditBy,
  type CreateBody,
  configuredData,
  type InstallContext,
  installedData,
  lockTenantInstalls,
  MAX_INSTALLS_PER_TENANT,
  nextUpdatedAt,
  RESERVED_INSTALL_NAMES,
  readVersion,
  readView,
  requireInstall,
  type SaveBody,
  viewOfId,
  type WrittenBy,
} from './service.ts';
import { type AutoUpgrade, appInstalls } from './tables.ts';
import { type InstallRow, type InstallView, readStoredSecretNames, type VersionRow } from './view.ts';

/** What a save answers: applied (201 on create, 200 on PUT), or held for approval (202 { install, change }). */
export type SaveOutcome<Applied extends 200 | 201 = 200 | 201> =
  | { status: Applied; body: InstallView }
  | { status: 202; body: { install: InstallView; change: ChangeView } };

const stateOf = (version: VersionRow, config: Record<string, unknown>): InstallState => ({
  manifest: version.manifest,
  config,
});

/**
 * Audits app.install.documents.enabled or .disabled when calls of the install start or stop reading
 * documents. A null state reads none: no install yet, or a new install still waiting.
 */
export async function auditDocumentsMove(
  tx: Tx,
  by: WrittenBy,
  install: InstallRow,
  before: InstallState | null,
  after: InstallState | null,
  data: Record<string, unknown>,
) {
  const move = documentsMove(before, after);
  if (move)
    await audit(tx, by, `app.install.documents.${move}`, install, { versionId: install.versionId, ...data });
}

const heldOutcome = async (tx: Tx, ctx: InstallContext, install: InstallRow, change: ChangeRow) =>
  ({
    status: 202,
    body: { install: await readView(tx, ctx, install), change: changeView(change, install.name) },
  }) as const;

/**
 * After a save commits: an opted-in install moves at once when its upgrade applies (docs/upgrades.md),
 * and the answer shows it as it is then. A save that waits for approval holds any move (its change does).
 */
async function afterSave<S extends SaveOutcome>(ctx: InstallContext, saved: S): Promise<S> {
  if (saved.status === 202 || saved.body.autoUpgrade !== 'compatible') return saved;
  if (!(await ctx.upgrades.afterWrite(saved.body.id))) return saved;
  return { ...saved, body: await viewOfId(ctx, saved.body.id) };
}

export async function createInstall(ctx: InstallContext, body: CreateBody): Promise<SaveOutcome<201>> {
  const tenantId = ctx.principal.tenantId;
  if (RESERVED_INSTALL_NAMES.includes(body.name)) {
    throw validationError(
      [{ path: '/name', message: `${body.name} is reserved` }],
      `${body.name} is reserved`,
    );
  }
  try {
    const saved = await ctx.database.db.transaction(async (tx): Promise<SaveOutcome<201>> => {
      await lockTenantInstalls(tx, tenantId);
      await assertNameFree(tx, tenantId, body.name);
      const [counted] = await tx
        .select({ n: count() })
        .from(appInstalls)
        .where(eq(appInstalls.tenantId, tenantId));
      if ((counted?.n ?? 0) >= MAX_INSTALLS_PER_TENANT) {
        throw new ApiError(
          'install_limit_reached',
          `a tenant has at most ${MAX_INSTALLS_PER_TENANT} installs`,
          {
            max: MAX_INSTALLS_PER_TENANT,
          },
        );
      }
      const autoUpgrade = body.autoUpgrade ?? 'off';
      const planned = await plan(tx, ctx, body, autoUpgrade, { hosts: [] });
      const approvals = await approvalSettingsOf(tx, tenantId);
      // Under approvals a new install adding hosts waits stored: disabled and without hosts, its row
      // holding the version and config asked for (so its secrets can be stored meanwhile).
      const waits = approvals.required && planned.added.length > 0;
      if (!waits) assertConfigured(planned, body, []);
      const [row] = await tx
        .insert(appInstalls)
        .values({
          tenantId,
          name: body.name,
          appName: planned.version.name,
          versionId: planned.version.id,
          autoUpgrade,
          enabled: waits ? false : body.enabled,
          config: body.config,
          hosts: waits ? [] : planned.hosts,
        })
        .returning();
      const install = row as InstallRow;
      if (waits) {
        const change = await requestChange(tx, ctx, {
          install,
          currentVersion: null,
          asked: { ...planned, config: body.config, enabled: body.enabled, autoUpgrade },
          newInstall: true,
          settings: approvals,
          comment: body.comment,
          origin: 'save',
        });
        return heldOutcome(tx, ctx, install, change);
      }
      await audit(tx, ctx, 'app.installed', install, {
        ...installedData(install, planned.version),
        comment: body.comment,
      });
      await auditDocumentsMove(tx, ctx, install, null, stateOf(planned.version, install.config), {
        via: 'save',
      });
      return { status: 201, body: await readView(tx, ctx, install) };
    });
    return await afterSave(ctx, saved);
  } catch (error) {
    // The advisory lock makes this unreachable in practice; the unique index still has the last word.
    if (isUniqueViolation(error)) {
      throw new ApiError('install_name_taken', `an install named ${body.name} already exists`, {
        name: body.name,
        aliasOf: null,
      });
    }
    throw error;
  }
}

/** The install being saved, as a save's two outcomes (apply or hold) read it. */
interface Saving {
  current: InstallRow;
  currentVersion: VersionRow;
  /** The install's first save still waits for approval: it runs nothing yet. */
  waitingNew: boolean;
  body: SaveBody;
  autoUpgrade: AutoUpgrade;
}

/**
 * PUT /app-installs/:install: the whole state the install should have (autoUpgrade absent keeps it).
 * Applies at once (200), or, when the tenant requires approvals for apps and the save adds hosts, waits
 * for a decision (202): see heldSave. Either way the install's open change is superseded.
 */
export async function saveInstall(
  ctx: InstallContext,
  name: string,
  body: SaveBody,
): Promise<SaveOutcome<200>> {
  const tenantId = ctx.principal.tenantId;
  const saved = await ctx.database.db.transaction(async (tx) => {
    const current = await requireInstall(tx, tenantId, name, true);
    const currentVersion = await readVersion(tx, current.versionId);
    const open = await openChangeOf(tx, current.id);
    const saving: Saving = {
      current,
      currentVersion,
      waitingNew: open?.newInstall === true,
      body,
      autoUpgrade: body.autoUpgrade ?? current.autoUpgrade,
    };
    // A save that only switches the install off is never refused: not by a withdrawn or blocked version,
    // nor by a config the version would now refuse. (A waiting new install is already off: its save is
    // checked like any other, so it never becomes an install without its hosts.)
    const onlySwitchOff =
      !saving.waitingNew &&
      !body.enabled &&
      body.versionId === current.versionId &&
      isDeepStrictEqual(current.config, body.config) &&
      saving.autoUpgrade === current.autoUpgrade;
    if (onlySwitchOff) {
      return appliedSave(tx, ctx, saving, {
        version: currentVersion,
        hosts: current.hosts,
        config: current.config,
      });
    }
    const planned = await plan(tx, ctx, body, saving.autoUpgrade, {
      hosts: current.hosts,
      version: currentVersion,
      upgradedFromVersionId: current.upgradedFromVersionId,
    });
    const approvals = await approvalSettingsOf(tx, tenantId);
    if (approvals.required && planned.added.length > 0) return heldSave(tx, ctx, saving, planned, approvals);
    const stored = (await readStoredSecretNames(tx, [current.id])).get(current.id) ?? [];
    assertConfigured(planned, body, stored);
    return appliedSave(tx, ctx, saving, {
      version: planned.version,
      hosts: planned.hosts,
      config: body.config,
    });
  });
  return afterSave(ctx, saved);
}

async function appliedSave(
  tx: Tx,
  ctx: InstallContext,
  { current, currentVersion, waitingNew, body, autoUpgrade }: Saving,
  next: { version: VersionRow; hosts: string[]; config: Record<string, unknown> },
): Promise<SaveOutcome<200>> {
  const superseded = await supersedeOpenChange(tx, ctx, current);
  const [row] = await tx
    .update(appInstalls)
    .set({
      versionId: next.version.id,
      enabled: body.enabled,
      config: next.config,
      hosts: next.hosts,
      autoUpgrade,
      updatedAt: nextUpdatedAt(),
    })
    .where(eq(appInstalls.id, current.id))
    .returning();
  const install = row as InstallRow;
  // Cached values: a save changing version or config clears them.
  await clearCacheAfterSave(tx, current, install, auditBy(ctx));
  if (waitingNew) {
    // The install's first save never applied: it comes into service now.
    await audit(tx, ctx, 'app.installed', install, {
      ...installedData(install, next.version),
      comment: body.comment,
      supersededChangeId: superseded?.id ?? null,
    });
  } else {
    await audit(tx, ctx, 'app.configured', install, {
      ...configuredData(current, install, next.version),
      comment: body.comment,
    });
  }
  await auditDocumentsMove(
    tx,
    ctx,
    install,
    waitingNew ? null : stateOf(currentVersion, current.config),
    stateOf(next.version, install.config),
    { via: 'save' },
  );
  return { status: 200, body: await readView(tx, ctx, install) };
}

/**
 * A save that waits for approval (docs/install-changes.md "When a save waits"). The install keeps serving on
 * its approved version, config and hosts, except for the part that applies at once: switching off, and
 * stopping documents through the current version's switch. A waiting new install's row takes the newly
 * asked version and config (still disabled, without hosts). Then the change opens (superseding the open one).
 */
async function heldSave(
  tx: Tx,
  ctx: InstallContext,
  { current, currentVersion, waitingNew, body, autoUpgrade }: Saving,
  planned: Planned,
  approvals: ApprovalSettings,
): Promise<SaveOutcome<200>> {
  const now = waitingNew
    ? { enabled: false, config: body.config }
    : partAppliedAtOnce(
        { enabled: current.enabled, config: current.config, manifest: currentVersion.manifest },
        { enabled: body.enabled, config: body.config, manifest: planned.version.manifest },
      );
  const configChanged = !isDeepStrictEqual(now.config, current.config);
  let install = current;
  if (waitingNew || configChanged || now.enabled !== current.enabled) {
    const [row] = await tx
      .update(appInstalls)
      .set({
        enabled: now.enabled,
        config: now.config,
        ...(waitingNew ? { versionId: planned.version.id, autoUpgrade } : {}),
        updatedAt: nextUpdatedAt(),
      })
      .where(eq(appInstalls.id, current.id))
      .returning();
    install = row as InstallRow;
  }
  const change = await requestChange(tx, ctx, {
    install,
    currentVersion: waitingNew ? null : currentVersion,
    asked: { ...planned, config: body.config, enabled: body.enabled, autoUpgrade },
    newInstall: waitingNew,
    settings: approvals,
    comment: body.comment,
    origin: 'save',
  });
  if (!waitingNew && install !== current) {
    // The documents switch is config: when it moved, cached values go as for any save changing config.
    await clearCacheAfterSave(tx, current, install, auditBy(ctx));
    await audit(tx, ctx, 'app.configured', install, {
      ...configuredData(current, install, currentVersion),
      comment: body.comment,
      appliedAtOnceOf: change.id,
    });
    await auditDocumentsMove(
      tx,
      ctx,
      install,
      stateOf(currentVersion, current.config),
      stateOf(currentVersion, install.config),
      { via: 'save', changeId: change.id },
    );
  }
  return heldOutcome(tx, ctx, install, change);
}
