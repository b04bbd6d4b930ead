// `platform token`: a development JWT signed with the local key in DATA_DIR, for a tenant created on demand.
import { readOrCreateLocalSecrets } from '../auth/local-keys.ts';
import { isPermission, ROLES } from '../auth/permissions.ts';
import { lifetimeSeconds, MAX_LOCAL_TOKEN_LIFETIME_SECONDS, signLocalToken } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/pool.ts';
import { ensureTenant, TENANT_NAME } from '../tenants/service.ts';
import { openDatabaseForCommand } from './database.ts';

export interface TokenOptions {
  tenant: string;
  role: string;
  permission: string[];
  user?: string;
  machine?: boolean;
  expiresIn: string;
}

export class UsageError extends Error {}

export async function mintToken(config: Config, options: TokenOptions): Promise<string> {
  if (!TENANT_NAME.test(options.tenant))
    throw new UsageError('--tenant: 1 to 100 lower-case letters, digits or hyphens');
  if (!(ROLES as readonly string[]).includes(options.role)) throw new UsageError('--role: admin or analyst');
  const unknown = options.permission.filter((p) => !isPermission(p));
  if (unknown.length > 0) throw new UsageError(`--permission: unknown ${unknown.join(', ')}`);
  // Checked here, before the key, the database or the tenant is touched: left to the signer, a bad
  // lifetime failed only after all three (and jose takes "-5m" or "5m ago", an already expired token).
  const lifetime = lifetimeSeconds(options.expiresIn);
  if (lifetime === null) throw new UsageError('--expires-in: a lifetime such as 30m, 12h or 7d');
  if (lifetime > MAX_LOCAL_TOKEN_LIFETIME_SECONDS)
    throw new UsageError('--expires-in: a token lives at most 30d');
  const kind = options.machine ? 'machine' : 'human';
  const user = options.user ?? (options.machine ? 'service' : 'developer');

  const local = await readOrCreateLocalSecrets(config.dataDir);
  const tenantId = await withTenant(config, options.tenant);
  return signLocalToken(
    local.signingKey.privateJwk,
    {
      tenant: tenantId,
      sub: `${kind === 'machine' ? 'machine' : 'user'}:${user}`,
      name: user,
      kind,
      roles: [options.role],
      permissions: options.permission,
    },
    options.expiresIn,
  );
}

/**
 * Creates the tenant through the running platform's database (left running), or through the embedded
 * one started for the command and stopped after it.
 */
async function withTenant(config: Config, name: string): Promise<string> {
  const handle = config.databaseUrl ? null : await openDatabaseForCommand(config);
  const database = openDatabase(config.databaseUrl ?? (handle?.url as string), {
    max: 1,
    applicationName: 'apps-platform-token',
  });
  try {
    return (await ensureTenant(database.db, name, { appReview: config.appReviewDefault })).tenant.id;
  } finally {
    await database.close();
    await handle?.stop();
  }
}
