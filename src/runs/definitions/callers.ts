// Who calls an install's names (docs/runs.md "Who calls an install"): the current published
// versions of the tenant's definitions naming them, found by one overlap on the GIN-indexed install_names;
// what GET /app-installs/:install/usage answers; and the rewrite of a rename (rewrite drafts or publish).
import { and, arrayOverlaps, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable, Tx } from '../../db/pool.ts';
import {
  type Callers,
  type DefinitionRef,
  type InstallCallers,
  lockTenantInstalls,
  type Rewritten,
  type Skipped,
  type Usage,
} from '../../installs/index.ts';
import type { DefinitionBody } from '../model.ts';
import { definitions, definitionVersions, workflowRuns } from '../tables.ts';
import { publishSettings, requestApproval } from './approvals-store.ts';
import {
  audit,
  type DefinitionContext,
  draftOf,
  lockDefinition,
  publishedOf,
  publishVersion,
  validated,
  writeDraft,
} from './service.ts';
import { appCallsOf, withInstallRenamed } from './validation.ts';

export interface CallingDefinition extends DefinitionRef {
  definitionId: string;
  body: DefinitionBody;
  installNames: string[];
}

/** The current published versions of the tenant's definitions calling any of `names`, by kind and key. */
export async function publishedCallers(
  db: Queryable,
  tenantId: string,
  names: readonly string[],
): Promise<CallingDefinition[]> {
  if (names.length === 0) return [];
  const v = definitionVersions;
  return db
    .select({
      definitionId: v.definitionId,
      kind: definitions.kind,
      key: definitions.key,
      version: v.version,
      body: v.body,
      installNames: v.installNames,
    })
    .from(v)
    .innerJoin(definitions, eq(definitions.id, v.definitionId))
    .where(
      and(
        eq(v.tenantId, tenantId),
        eq(v.status, 'published'),
        arrayOverlaps(
          v.installNames,
          names.map((n) => n.toLowerCase()),
        ),
        // The current one: no later version of its definition is published.
        sql`not exists (select 1 from ${v} as later where later.definition_id = ${v.definitionId}
            and later.status = 'published' and later.version > ${v.version})`,
      ),
    )
    .orderBy(asc(definitions.kind), asc(definitions.key));
}

export const refOf = ({ kind, key, version }: DefinitionRef): DefinitionRef => ({ kind, key, version });

/**
 * The published definitions naming an install by any of its names (its current one first, then its
 * aliases): one item per definition and name it uses, with the actions it calls under that name.
 */
export async function usageOf(db: Queryable, tenantId: string, names: readonly string[]): Promise<Usage[]> {
  const items: Usage[] = [];
  for (const caller of await publishedCallers(db, tenantId, names)) {
    const calls = appCallsOf(caller.kind, caller.body);
    for (const name of names.filter((n) => caller.installNames.includes(n))) {
      const actions = calls.filter((c) => c.call.install.toLowerCase() === name).map((c) => c.call.action);
      items.push({ ...refOf(caller), calledAs: name, actions: [...new Set(actions)].sort() });
    }
  }
  return items;
}

/**
 * A rename's rewrite: every published definition calling one of `names` gets a new draft naming `to`
 * instead (drafts), which publish also publishes when it has no errors — or, when the tenant requires
 * approval for definitions, holds for approval (approval_requested, the renamer its requester). A
 * definition that already has a draft (newer than its published version, pinned by an open request or
 * not) is skipped: draft_pending. Each definition in a transaction of its own, so a rewrite failing part
 * way keeps what it wrote.
 */
export async function rewriteDefinitions(
  ctx: DefinitionContext,
  names: ReadonlySet<string>,
  to: string,
  rewrite: 'drafts' | 'publish',
): Promise<{ definitions: Rewritten[]; skipped: Skipped[] }> {
  const tenantId = ctx.principal.tenantId;
  const db = ctx.database.db;
  const result = { definitions: [] as Rewritten[], skipped: [] as Skipped[] };
  for (const caller of await publishedCallers(db, tenantId, [...names])) {
    await db.transaction(async (tx) => {
      if (rewrite === 'publish') await lockTenantInstalls(tx, tenantId); // as publishDefinition does
      const def = await lockDefinition(tx, tenantId, caller.definitionId);
      if (!def) return;
      if (await draftOf(tx, def)) {
        result.skipped.push({ kind: def.kind, key: def.key, reason: 'draft_pending' });
        return;
      }
      // Read again under the lock: another publish may have come in between.
      const published = await publishedOf(tx, def);
      if (!published?.installNames.some((n) => names.has(n))) return;
      const body = withInstallRenamed(def.kind, published.body, names, to);
      let { row } = await writeDraft(tx, ctx, def, body);
      const validation = await validated(tx, ctx, def.kind, body);
      await audit(tx, ctx, 'definition.draft.saved', def, {
        version: row.version,
        replaced: false,
        errors: validation.errors.length,
        warnings: validation.warnings.length,
        rename: { from: [...names].sort(), to },
      });
      if (rewrite === 'publish' && validation.errors.length === 0) {
        // As a publish: when the tenant requires approval for definitions, the renamer's request opens.
        const settings = await publishSettings(tx, tenantId);
        if (settings.required) {
          const approval = await requestApproval(tx, ctx, def, row, {
            origin: 'rename',
            fourEyes: settings.fourEyes,
          });
          result.definitions.push({
            kind: def.kind,
            key: def.key,
            version: row.version,
            status: 'approval_requested',
            approvalId: approval.id,
          });
          return;
        }
        row = await publishVersion(tx, ctx, def, row);
      }
      result.definitions.push({ kind: def.kind, key: def.key, version: row.version, status: row.status });
    });
  }
  return result;
}

/**
 * The runs in flight (running, or waiting on a callback) whose workflow version calls `name` in a step
 * or fallback: a rename without an alias, or an alias removal, would fail their steps not yet run.
 */
export async function runsInFlightCalling(tx: Tx, tenantId: string, name: string): Promise<{ id: string }[]> {
  return tx
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .innerJoin(definitionVersions, eq(definitionVersions.id, workflowRuns.definitionVersionId))
    .where(
      and(
        eq(workflowRuns.tenantId, tenantId),
        inArray(workflowRuns.status, ['running', 'waiting_callback']),
        arrayOverlaps(definitionVersions.installNames, [name.toLowerCase()]),
      ),
    )
    .orderBy(asc(workflowRuns.createdAt))
    .limit(100);
}

/** What the installs layer asks through its port (src/installs/callers.ts), answered by this layer. */
export const definitionCallers: InstallCallers = {
  async callersOf(tx, tenantId, name): Promise<Callers> {
    const callers = await publishedCallers(tx, tenantId, [name]);
    return { definitions: callers.map(refOf), runs: await runsInFlightCalling(tx, tenantId, name) };
  },
  rewrite: (ctx, names, to, rewrite) => rewriteDefinitions(ctx, names, to, rewrite),
  usage: usageOf,
};
