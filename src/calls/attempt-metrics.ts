// An attempt's service.app.invocation.duration (docs/telemetry.md "Metrics"): labelled with the tenant's
// name, never its id. Names are read once and kept a while per process, so an attempt waits for no
// query: an attempt of a tenant new to the process is recorded once its name has been read.
// Nothing is read or recorded with telemetry off.
import type { Queryable } from '../db/pool.ts';
import type { InstallRow } from '../installs/index.ts';
import { type InvocationStatus, metricsOn, recordInvocation } from '../telemetry/index.ts';
import { findTenantById } from '../tenants/service.ts';

/** How long a tenant's name is kept before it is read again (a rename shows within this). */
const NAME_KEPT_MS = 10 * 60_000;
/** Names kept at most; past it the oldest goes first. */
const MAX_NAMES = 10_000;

const names = new Map<string, { name: string | null; readAt: number }>();
const reading = new Map<string, Promise<string | null>>();

/** The tenant's name when kept and fresh; otherwise read in the background, the name meanwhile null. */
async function tenantName(db: Queryable, tenantId: string): Promise<string | null> {
  const kept = names.get(tenantId);
  if (kept && Date.now() - kept.readAt < NAME_KEPT_MS) return kept.name;
  let read = reading.get(tenantId);
  if (!read) {
    read = findTenantById(db, tenantId)
      .then((tenant) => tenant?.name ?? null)
      .catch(() => kept?.name ?? null)
      .then((name) => {
        names.delete(tenantId);
        names.set(tenantId, { name, readAt: Date.now() });
        if (names.size > MAX_NAMES) names.delete(names.keys().next().value as string);
        reading.delete(tenantId);
        return name;
      });
    reading.set(tenantId, read);
  }
  return read;
}

/** Records one attempt a runner took; never throws, never delays the attempt. */
export function noteAttempt(
  db: Queryable,
  install: InstallRow,
  action: string,
  status: InvocationStatus,
  durationMs: number,
): void {
  if (!metricsOn()) return;
  void tenantName(db, install.tenantId).then((tenant) =>
    recordInvocation({ tenant, app: install.appName, install: install.name, action, status }, durationMs),
  );
}
