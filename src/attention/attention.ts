// Home's attention list (docs/notifications.md "Home's attention list"): what waits for someone in the
// tenant, gathered from a few sources. Each source names the permission that shows it, the count it fills
// and how it reads its items: its owner reads the facts (installs, outbound webhooks), attention-rules.ts
// words them. A caller sees the sources its permissions show, and the counts of the others stay 0. Adding
// a source is one entry of sourcesOf (its count is in AttentionCounts and the route's schema).
import type { Permission } from '../auth/permissions.ts';
import type { Queryable } from '../db/pool.ts';
import { pendingInstallChanges, type UpgradeReading, waitingUpgrades } from '../installs/index.ts';
import { failingEndpointRows } from '../outbound-webhooks/index.ts';
import {
  type AttentionEntry,
  failingEndpointEntry,
  pendingChangeEntry,
  upgradeWaitingEntry,
} from './attention-rules.ts';

export type AttentionKind = 'install_change_pending' | 'install_upgrade_waiting' | 'webhook_endpoint_failing';

export interface AttentionCounts {
  installChangesPending: number;
  installUpgradesWaiting: number;
  failingEndpoints: number;
}

export interface AttentionItem {
  kind: AttentionKind;
  resource: { type: string; id: string };
  title: string;
  href: string | null;
  since: string;
}

export interface AttentionSource {
  kind: AttentionKind;
  /** The count its items fill. */
  count: keyof AttentionCounts;
  /** Only holders of it see the source. */
  permission: Permission;
  /** Every item of the tenant, oldest first. */
  read(db: Queryable, tenantId: string): Promise<AttentionEntry[]>;
}

/** webhook_endpoint_failing: endpoints whose delivery was given up within the day before `now`. */
export const failingEndpoints = async (db: Queryable, tenantId: string, now = new Date()) =>
  (await failingEndpointRows(db, tenantId, now)).map(failingEndpointEntry);

/**
 * The sources, in the list's order. Waiting upgrades are decided as the sweep decides them, which reads who
 * calls each install and the deployment's host rules (`upgrades`).
 */
export const sourcesOf = (upgrades: UpgradeReading): readonly AttentionSource[] => [
  {
    kind: 'install_change_pending',
    count: 'installChangesPending',
    permission: 'apps:read',
    read: async (db, tenantId) => (await pendingInstallChanges(db, tenantId)).map(pendingChangeEntry),
  },
  {
    kind: 'install_upgrade_waiting',
    count: 'installUpgradesWaiting',
    permission: 'apps:read',
    read: async (db, tenantId) => (await waitingUpgrades(db, tenantId, upgrades)).map(upgradeWaitingEntry),
  },
  {
    kind: 'webhook_endpoint_failing',
    count: 'failingEndpoints',
    permission: 'webhooks:read',
    read: (db, tenantId) => failingEndpoints(db, tenantId),
  },
];

export interface Attention {
  counts: AttentionCounts;
  items: AttentionItem[];
}

/** The attention list a principal sees: its sources in their order, each oldest first. */
export async function readAttention(
  db: Queryable,
  principal: { tenantId: string; permissions: ReadonlySet<string> },
  sources: readonly AttentionSource[],
): Promise<Attention> {
  const counts: AttentionCounts = {
    installChangesPending: 0,
    installUpgradesWaiting: 0,
    failingEndpoints: 0,
  };
  const items: AttentionItem[] = [];
  for (const source of sources) {
    if (!principal.permissions.has(source.permission)) continue;
    const entries = await source.read(db, principal.tenantId);
    counts[source.count] += entries.length;
    for (const entry of entries) {
      items.push({
        kind: source.kind,
        resource: entry.resource,
        title: entry.title,
        href: entry.href,
        since: entry.since.toISOString(),
      });
    }
  }
  return { counts, items };
}
