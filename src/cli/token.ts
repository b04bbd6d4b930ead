// `platform token`: a development JWT signed with the local key in DATA_DIR, for a tenant created on demand.
import type { PlatformClaims } from '../auth/claims.ts';
import { readOrCreateLocalSecrets } from '../auth/local-keys.ts';
import { isPermission, ROLES } from '../auth/permissions.ts';
import { lifetimeSeconds, MAX_LOCAL_TOKEN_LIFETIME_SECONDS, signLocalToken } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Queryable } from '../db/pool.ts';
import { ensureTenant, TENANT_NAME } from '../tenants/service.ts';
import { isUuid } from '../uuid.ts';
import { openDatabaseForCommand } from './database.ts';
import { UsageError } from './usage.ts';

export { UsageError };

export interface TokenOptions {
  tenant: string;
  /** Required unless applicant is given. */
  role?: string;
  permission: string[];
  user?: string;
  machine?: boolean;
  /** A collection submission's id: an applicant token (kind applicant, sub = the id, no roles). */
  applicant?: string;
  expiresIn: string;
}

/** The claims asked for, checked before the key, the database or the tenant is touched. */
function claimsAsked(options: TokenOptions): Omit<PlatformClaims, 'tenant'> {
  if (options.applicant !== undefined) {
    if (!isUuid(options.applicant)) throw new UsageError('--applicant: a collection submission id (uuid)');
    const others = (
      [
        ['--role', options.role !== undefined],
        ['--permission', options.permission.length > 0],
        ['--user', options.user !== undefined],
        ['--machine', options.machine === true],
      ] as const
    ).filter(([, given]) => given);
    if (others.length > 0) {
      throw new UsageError(`--applicant takes no ${others.map(([name]) => name).join(', ')}`);
    }
    // An applicant holds no role or permission: it reaches only its own submission's applicant routes.
    const id = options.applicant.toLowerCase();
    return { sub: id, name: 'applicant', kind: 'applicant', roles: [], permissions: [] };
  }
  if (options.role === undefined || !(ROLES as readonly string[]).includes(options.role)) {
    throw new UsageError('--role: admin or analyst (or --applicant <submissionId> for an applicant)');
  }
  const unknown = options.permission.filter((p) => !isPermission(p));
  if (unknown.length > 0) throw new UsageError(`--permission: unknown ${unknown.join(', ')}`);
  const kind = options.machine ? 'machine' : 'human';
  const user = options.user ?? (options.machine ? 'service' : 'developer');
  return {
    sub: `${kind === 'machine' ? 'machine' : 'user'}:${user}`,
    name: user,
    kind,
    roles: [options.role],
    permissions: options.permission,
  };
}

export async function mintToken(config: Config, options: TokenOptions): Promise<string> {
  if (!TENANT_NAME.test(options.tenant))
    throw new UsageError('--tenant: 1 to 100 lower-case letters, digits or hyphens');
  const claims = claimsAsked(options);
  // Checked here, before the key, the database or the tenant is touched: left to the signer, a bad
  // lifetime failed only after all three (and jose takes "-5m" or "5m ago", an already expired token).
  const lifetime = lifetimeSeconds(options.expiresIn);
  if (lifetime === null) throw new UsageError('--expires-in: a lifetime such as 30m, 12h or 7d');
  if (lifetime > MAX_LOCAL_TOKEN_LIFETIME_SECONDS)
    throw new UsageError('--expires-in: a token lives at most 30d');

  const local = await readOrCreateLocalSecrets(config.dataDir);
  const tenantId = await withTenant(config, options.tenant, async (db, id) => {
    // An applicant token names a submission of that tenant (created through POST /collection-submissions).
    if (claims.kind !== 'applicant') return;
    // Loaded only here: the collections' front door brings their routes and the runner with it.
    const { findSubmission } = await import('../collections/index.ts');
    if (!(await findSubmission(db, id, claims.sub))) {
      throw new Error(`tenant ${options.tenant} has no collection submission ${claims.sub}`);
    }
  });
  return signLocalToken(local.signingKey.privateJwk, { tenant: tenantId, ...claims }, options.expiresIn);
}

/**
 * Creates the tenant through the running platform's database (left running), or through the embedded
 * one started for the command and stopped after it; `check` reads that database before it closes.
 */
async function withTenant(
  config: Config,
  name: string,
  check: (db: Queryable, tenantId: string) => Promise<void>,
): Promise<string> {
  const handle = config.databaseUrl ? null : await openDatabaseForCommand(config);
  const database = openDatabase(config.databaseUrl ?? (handle?.url as string), {
    max: 1,
    applicationName: 'apps-platform-token',
  });
  try {
    const id = (await ensureTenant(database.db, name, { appReview: config.appReviewDefault })).tenant.id;
    await check(database.db, id);
    return id;
  } finally {
    await database.close();
    await handle?.stop();
  }
}
