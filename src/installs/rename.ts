// Renames and aliases of an install (docs/installs.md "Renames and aliases"). A rename keeps the
// install's id and so everything hanging on it (secrets, cached values, circuit, callbacks, changes,
// webhook URL). With keepAlias the former name stays an alias, at most MAX_ALIASES_PER_INSTALL; names
// and aliases share the tenant's namespace; renaming to one's own alias takes it back.
//
// Who calls a name (published definitions, runs in flight), a rename's rewrite of the calling definitions
// and GET …/usage are asked through the context's callers port (callers.ts), which the definitions layer
// answers; installs never import that layer.
import { and, asc, count, eq } from 'drizzle-orm';
import { isUniqueViolation } from '../db/errors.ts';
import type { Queryable } from '../db/pool.ts';
import { ApiError, forbidden, notFound, validationError } from '../http/errors.ts';
import type { Callers, Rewrite, Rewritten, Skipped, Usage } from './callers.ts';
import {
  assertNameFree,
  audit,
  findInstall,
  type InstallContext,
  lockTenantInstalls,
  nextUpdatedAt,
  RESERVED_INSTALL_NAMES,
  readView,
  requireInstall,
} from './service.ts';
import { appInstallAliases, appInstalls } from './tables.ts';
import type { InstallRow, InstallView } from './view.ts';

export const MAX_ALIASES_PER_INSTALL = 5;

export type { Rewrite };

export interface RenameBody {
  name: string;
  keepAlias: boolean;
  rewrite?: Rewrite;
}

export interface RenameResult {
  install: InstallView;
  /** The former name kept as an alias, or null. */
  alias: string | null;
  /**
   * The definitions the rewrite wrote a draft of (status published: it published it too;
   * approval_requested: it asked for its approval, approvalId).
   */
  definitions: Rewritten[];
  /** The calling definitions it left alone: a draft newer than the published version exists. */
  skipped: Skipped[];
}

/**
 * The rewrite of a rename, once it committed: the published definitions calling the install's former name
 * (or any name it keeps) get a new draft naming `to` (and publish publishes it, or requests its
 * approval when the tenant requires one); a definition with a draft is skipped (draft_pending). A
 * rewrite failing part way leaves the rename done.
 */
export async function rewriteCallers(
  ctx: InstallContext,
  from: string,
  to: string,
  rewrite: Rewrite,
): Promise<{ definitions: Rewritten[]; skipped: Skipped[] }> {
  // Read after the rename committed: should the install have moved on since, its former name alone.
  const install = await findInstall(ctx.database.db, ctx.principal.tenantId, to, false);
  const aliases = install ? (await aliasesOf(ctx.database.db, install.id)).map((a) => a.alias) : [];
  return ctx.callers.rewrite(ctx, new Set([from, ...aliases]), to, rewrite);
}

/** GET /app-installs/:install/usage: the published definitions naming the install by any of its names. */
export async function getInstallUsage(ctx: InstallContext, name: string): Promise<{ items: Usage[] }> {
  const db = ctx.database.db;
  const install = await requireInstall(db, ctx.principal.tenantId, name, false);
  const aliases = (await aliasesOf(db, install.id)).map((a) => a.alias);
  return { items: await ctx.callers.usage(db, ctx.principal.tenantId, [install.name, ...aliases]) };
}

/** drafts writes drafts (definitions:write); publish also publishes them (definitions:publish too). */
function assertMayRewrite(ctx: InstallContext, rewrite: Rewrite | undefined) {
  if (!rewrite) return;
  const needed =
    rewrite === 'publish'
      ? (['definitions:write', 'definitions:publish'] as const)
      : (['definitions:write'] as const);
  for (const permission of needed) {
    if (!ctx.principal.permissions.has(permission)) {
      throw forbidden(`rewrite ${rewrite} needs the ${permission} permission`, { permission });
    }
  }
}

const inUse = (code: 'install_in_use' | 'alias_in_use', message: string, callers: Callers) =>
  new ApiError(code, message, { definitions: callers.definitions, runs: callers.runs });

const aliasesOf = (db: Queryable, installId: string) =>
  db
    .select({ alias: appInstallAliases.alias })
    .from(appInstallAliases)
    .where(eq(appInstallAliases.installId, installId))
    .orderBy(asc(appInstallAliases.createdAt));

/** POST /app-installs/:install/rename. */
export async function renameInstall(
  ctx: InstallContext,
  name: string,
  body: RenameBody,
): Promise<RenameResult> {
  const tenantId = ctx.principal.tenantId;
  const to = body.name;
  if (RESERVED_INSTALL_NAMES.includes(to)) {
    throw validationError([{ path: '/name', message: `${to} is reserved` }], `${to} is reserved`);
  }
  assertMayRewrite(ctx, body.rewrite);
  let result: { install: InstallView; alias: string | null };
  try {
    result = await ctx.database.db.transaction(async (tx) => {
      // The tenant's lock first (names across both tables), then the install's row.
      await lockTenantInstalls(tx, tenantId);
      const current = await requireInstall(tx, tenantId, name, true);
      const aliases = (await aliasesOf(tx, current.id)).map((a) => a.alias);
      const takingBack = aliases.includes(to);
      if (to === current.name) {
        throw new ApiError('install_name_taken', `${to} is already this install's name`, {
          name: to,
          aliasOf: null,
        });
      }
      if (!takingBack) await assertNameFree(tx, tenantId, to);
      const kept = body.keepAlias ? current.name : null;
      const remaining = aliases.length - (takingBack ? 1 : 0);
      if (kept !== null && remaining + 1 > MAX_ALIASES_PER_INSTALL) {
        throw new ApiError(
          'alias_limit_reached',
          `an install keeps at most ${MAX_ALIASES_PER_INSTALL} former names; remove one or rename with keepAlias false`,
          { max: MAX_ALIASES_PER_INSTALL },
        );
      }
      if (kept === null) {
        const callers = await ctx.callers.callersOf(tx, tenantId, current.name);
        if (callers.definitions.length > 0 || callers.runs.length > 0) {
          throw inUse('install_in_use', `definitions or runs still call ${current.name}`, callers);
        }
      }
      if (takingBack) {
        await tx
          .delete(appInstallAliases)
          .where(and(eq(appInstallAliases.installId, current.id), eq(appInstallAliases.alias, to)));
      }
      const [row] = await tx
        .update(appInstalls)
        .set({
          name: to,
          updatedAt: nextUpdatedAt(),
        })
        .where(eq(appInstalls.id, current.id))
        .returning();
      const install = row as InstallRow;
      if (kept !== null) {
        await tx.insert(appInstallAliases).values({ tenantId, installId: install.id, alias: kept });
      }
      await audit(tx, ctx, 'app.install.renamed', install, {
        previousName: current.name,
        keepAlias: body.keepAlias,
        alias: kept,
        aliasTakenBack: takingBack,
        rewrite: body.rewrite ?? null,
      });
      return { install: await readView(tx, ctx, install), alias: kept };
    });
  } catch (error) {
    // The advisory lock makes this unreachable in practice; the unique indexes still have the last word.
    if (isUniqueViolation(error)) {
      throw new ApiError('install_name_taken', `an install named ${to} already exists`, {
        name: to,
        aliasOf: null,
      });
    }
    throw error;
  }
  const rewritten = body.rewrite
    ? await rewriteCallers(ctx, name, to, body.rewrite)
    : { definitions: [], skipped: [] };
  return { ...result, ...rewritten };
}

/** DELETE /app-installs/:install/aliases/:alias: frees a former name (alias_in_use unless force). */
export async function removeAlias(
  ctx: InstallContext,
  name: string,
  alias: string,
  force: boolean,
): Promise<InstallView> {
  const tenantId = ctx.principal.tenantId;
  return ctx.database.db.transaction(async (tx) => {
    // The tenant's lock first, as a rename takes it: a definition's publish waits for it too, so it
    // cannot start calling the alias between the check below and the removal.
    await lockTenantInstalls(tx, tenantId);
    const install = await requireInstall(tx, tenantId, name, true);
    const [kept] = await tx
      .select({ n: count() })
      .from(appInstallAliases)
      .where(and(eq(appInstallAliases.installId, install.id), eq(appInstallAliases.alias, alias)));
    if ((kept?.n ?? 0) === 0) throw notFound(`install ${install.name} keeps no alias named ${alias}`);
    const callers = await ctx.callers.callersOf(tx, tenantId, alias);
    const called = callers.definitions.length > 0 || callers.runs.length > 0;
    if (called && !force) throw inUse('alias_in_use', `definitions or runs still call ${alias}`, callers);
    await tx
      .delete(appInstallAliases)
      .where(and(eq(appInstallAliases.installId, install.id), eq(appInstallAliases.alias, alias)));
    await audit(tx, ctx, 'app.install.alias.removed', install, { alias, force });
    return readView(tx, ctx, install);
  });
}
