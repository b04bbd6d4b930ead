// Secrets of an install (docs/installs.md): which names may be stored, sealed with SECRET_STORE_KEY and
// bound to tenant, install and name. A value goes nowhere but the sealed row: not into an answer, an
// audit record, an error or a log line.
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/pool.ts';
import { ApiError, notFound, validationError } from '../../http/errors.ts';
import { clearInstallCache } from '../cache/cache.ts';
import { openChangeOf } from '../changes/changes-store.ts';
import {
  audit,
  auditBy,
  type InstallContext,
  readVersion,
  readView,
  requireInstall,
  viewOfId,
} from '../service.ts';
import { appInstallSecrets } from '../tables.ts';
import { type InstallRow, type InstallView, publishedVersionsOf } from '../view.ts';
import { seal } from './seal.ts';
import { mayStoreSecret, secretValueIssue } from './secrets-rules.ts';

const secretStoreUnavailable = () =>
  new ApiError('secret_store_unavailable', 'this deployment has no secret store key (SECRET_STORE_KEY)');

/** Whether `secret` may be stored for the install (docs/installs.md "Secrets"). */
async function storable(tx: Tx, install: InstallRow, secret: string): Promise<boolean> {
  const version = await readVersion(tx, install.versionId);
  const published = await publishedVersionsOf(tx, version);
  const upgradedFrom = install.upgradedFromVersionId
    ? await readVersion(tx, install.upgradedFromVersionId)
    : null;
  // The change awaiting approval: the version and config it asks for (its secrets are stored before the
  // decision, so an approved change can enable the install at once).
  const pending = await openChangeOf(tx, install.id);
  const pendingVersion = pending ? await readVersion(tx, pending.versionId) : null;
  return mayStoreSecret(secret, {
    installed: { manifest: version.manifest, config: install.config },
    published: published.map((v) => ({ manifest: v.manifest })),
    upgradedFrom: upgradedFrom ? { manifest: upgradedFrom.manifest } : null,
    pendingChange:
      pending && pendingVersion ? { manifest: pendingVersion.manifest, config: pending.config } : null,
  });
}

/**
 * Stores (or replaces) a secret, sealed and bound to tenant, install and name. The value goes nowhere
 * else: not into the answer, the audit record, an error or a log line. The install row is locked, so a
 * store racing a removal of the install waits for it and then answers 404 unknown_install.
 */
export async function storeSecret(
  ctx: InstallContext,
  name: string,
  secret: string,
  value: string,
): Promise<InstallView> {
  const issue = secretValueIssue(value);
  if (issue) throw validationError([issue], 'this value is too short to be kept secret');
  const key = ctx.settings.secretStoreKey;
  if (!key) throw secretStoreUnavailable();
  const stored = await ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    if (!(await storable(tx, install, secret))) {
      throw validationError(
        [
          {
            path: 'params.secret',
            message: `${secret} is not a secret this install's app or config declares`,
          },
        ],
        'this secret name may not be stored for this install',
      );
    }
    const sealed = seal(key, { tenantId: install.tenantId, installId: install.id, name: secret }, value);
    const [existing] = await tx
      .select({ name: appInstallSecrets.name })
      .from(appInstallSecrets)
      .where(and(eq(appInstallSecrets.installId, install.id), eq(appInstallSecrets.name, secret)));
    await tx
      .insert(appInstallSecrets)
      .values({ installId: install.id, tenantId: install.tenantId, name: secret, sealed })
      .onConflictDoUpdate({
        target: [appInstallSecrets.installId, appInstallSecrets.name],
        set: { sealed, updatedAt: new Date() },
      });
    await clearInstallCache(tx, install, 'secret', auditBy(ctx));
    await audit(tx, ctx, 'app.secret.stored', install, { secret, replaced: existing !== undefined });
    return readView(tx, ctx, install);
  });
  // A secret written for an opted-in install moves it at once when its upgrade applies (it may have waited
  // on that secret); the answer shows the install as it is then.
  if (stored.autoUpgrade !== 'compatible' || !(await ctx.upgrades.afterWrite(stored.id))) return stored;
  return viewOfId(ctx, stored.id);
}

export async function removeSecret(ctx: InstallContext, name: string, secret: string): Promise<InstallView> {
  if (!ctx.settings.secretStoreKey) throw secretStoreUnavailable();
  return ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const removed = await tx
      .delete(appInstallSecrets)
      .where(and(eq(appInstallSecrets.installId, install.id), eq(appInstallSecrets.name, secret)))
      .returning({ name: appInstallSecrets.name });
    if (removed.length === 0) throw notFound(`no secret named ${secret} is stored for this install`);
    // An enabled install that now misses a required secret stays enabled: its calls fail with
    // install_not_configured until the secret is stored again.
    await clearInstallCache(tx, install, 'secret', auditBy(ctx));
    await audit(tx, ctx, 'app.secret.revoked', install, { secret });
    return readView(tx, ctx, install);
  });
}
