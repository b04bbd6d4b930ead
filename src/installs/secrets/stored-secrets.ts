// An install's sealed secrets, and its cached values with them (StoredWithInstall), read along with the
// install in the query a call or a vendor webhook sends anyway (calls/call-install.ts resolveCall,
// vendor-sessions/webhook-store.ts), as the cached values were already (cache.ts storedValuesJson): a
// statement less for every call of an install with secrets, two less for a vendor's webhook (issue 48).
// Still sealed: only admission opens them, and only those the version requires.
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/pool.ts';
import { type StoredCache, storedValuesJson, storedValuesOf } from '../cache/cache.ts';
import { appInstallSecrets, appInstalls } from '../tables.ts';

/** A secret as stored, still sealed. */
export interface StoredSecret {
  name: string;
  sealed: Buffer;
}

/** The install's sealed secrets as one JSON value (sealed bytes in base64): a subquery beside the install. */
export const storedSecretsJson = sql<
  { name: string; sealed: string }[]
>`(select coalesce(json_agg(json_build_object('name', ${appInstallSecrets.name}, 'sealed', encode(${appInstallSecrets.sealed}, 'base64'))), '[]'::json) from ${appInstallSecrets} where ${appInstallSecrets.installId} = ${appInstalls.id} and ${appInstallSecrets.tenantId} = ${appInstalls.tenantId})`;

/** storedSecretsJson's answer as stored secrets. Pure. */
export const storedSecretsOf = (json: { name: string; sealed: string }[]): StoredSecret[] =>
  json.map((secret) => ({ name: secret.name, sealed: Buffer.from(secret.sealed, 'base64') }));

/** The install's sealed secrets, read on their own (a caller that did not read them with the install). */
export function readStoredSecrets(db: Queryable, installId: string): Promise<StoredSecret[]> {
  return db
    .select({ name: appInstallSecrets.name, sealed: appInstallSecrets.sealed })
    .from(appInstallSecrets)
    .where(eq(appInstallSecrets.installId, installId));
}

/** What a call reads along with its install: its sealed secrets and its cached values, one snapshot. */
export interface StoredWithInstall {
  secrets: StoredSecret[];
  cache: StoredCache;
}

/** The subqueries a select of `app_installs` takes along for StoredWithInstall (storedWithInstallOf reads them). */
export const storedWithInstallColumns = { secrets: storedSecretsJson, cache: storedValuesJson };

/** The answer of storedWithInstallColumns, the install's cache generation read with it. Pure. */
export const storedWithInstallOf = (
  install: { cacheGeneration: number },
  row: {
    secrets: { name: string; sealed: string }[];
    cache: { name: string; sealed: string; expiresAt: string }[];
  },
): StoredWithInstall => ({
  secrets: storedSecretsOf(row.secrets),
  cache: { generation: install.cacheGeneration, values: storedValuesOf(row.cache) },
});
