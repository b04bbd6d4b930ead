// Operator blocks, read on every action that touches a module: a block by hash, or one covering every
// version of a publisher's app. Effective from its commit; lifting sets lifted_at.
import { and, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { appBlocks, appVersions } from './tables.ts';

export interface BlockTarget {
  sha256: string;
  publisher: 'platform' | 'tenant';
  tenantId: string | null;
  name: string;
}

/** A block target as values, or as the columns of a version a query reads (a block read with a call). */
type Operand<T> = T | AnyPgColumn;
export interface BlockTargetOf {
  sha256: Operand<string>;
  publisher: Operand<'platform' | 'tenant'>;
  tenantId: Operand<string | null>;
  name: Operand<string>;
}

/** The unlifted blocks covering the target: by its hash, or every version of its publisher's app. */
export function coveringBlocks(target: BlockTargetOf): SQL | undefined {
  return and(
    isNull(appBlocks.liftedAt),
    or(
      eq(appBlocks.sha256, target.sha256),
      and(
        eq(appBlocks.appName, target.name),
        eq(appBlocks.publisher, target.publisher),
        sql`${appBlocks.publisherTenantId} IS NOT DISTINCT FROM ${target.tenantId}`,
      ),
    ),
  );
}

/** The blocks covering the app_versions row a query reads beside them (a correlated subquery's condition). */
export const blocksOfVersionRow = () =>
  coveringBlocks({
    sha256: appVersions.sha256,
    publisher: appVersions.publisher,
    tenantId: appVersions.tenantId,
    name: appVersions.name,
  });

export async function findBlock(db: Queryable, target: BlockTarget) {
  const [block] = await db.select().from(appBlocks).where(coveringBlocks(target)).limit(1);
  return block ?? null;
}

/** 409 app_blocked with { sha256, reason } when the module or its app is blocked. */
export async function assertNotBlocked(db: Queryable, target: BlockTarget): Promise<void> {
  const block = await findBlock(db, target);
  if (block) throw appBlocked(target.sha256, block.reason);
}

export function appBlocked(sha256: string, reason: string): ApiError {
  return new ApiError('app_blocked', 'this module is blocked by the operator', { sha256, reason });
}
