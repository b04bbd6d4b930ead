// Pure rules of the catalogue: version order, an app's latest, and where a publish goes.
import semver from 'semver';
import type { TenantSettings } from '../tenants/settings.ts';
import { approvalRequired } from '../tenants/settings.ts';

export type VersionStatus = 'uploaded' | 'published' | 'withdrawn';

/** Highest first by semantic-version precedence: 1.10.0 above 1.9.0, a release above its prereleases. */
export function byVersionDescending<T extends { version: string }>(a: T, b: T): number {
  return semver.rcompare(a.version, b.version);
}

/**
 * An app's latest: its highest published release; a prerelease only when no release
 * is published; its highest version of any status when none is published.
 */
export function latestOf<T extends { version: string; status: VersionStatus }>(
  versions: readonly T[],
): T | null {
  const sorted = [...versions].sort(byVersionDescending);
  const published = sorted.filter((v) => v.status === 'published');
  return published.find((v) => semver.prerelease(v.version) === null) ?? published[0] ?? sorted[0] ?? null;
}

export type PublishRoute = 'publish' | 'request_approval' | 'operator_review';

/**
 * Where a tenant's publish goes: the tenant's own approval first when its settings require one (approving
 * it then goes on to the operator's review), else the operator's review, else it publishes.
 */
export function publishRoute(settings: TenantSettings, appReview: 'off' | 'required'): PublishRoute {
  return approvalRequired(settings, 'apps') ? 'request_approval' : approvedRoute(appReview);
}

/** Where an approved publish request goes: the operator's review for a tenant under it, else it publishes. */
export const approvedRoute = (appReview: 'off' | 'required'): Exclude<PublishRoute, 'request_approval'> =>
  appReview === 'required' ? 'operator_review' : 'publish';
