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
 * An app's latest (spec part 2 §9.4): its highest published release; a prerelease only when no release
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

/** Where a tenant's publish goes: the operator's review first, then the tenant's own approvals. */
export function publishRoute(settings: TenantSettings, appReview: 'off' | 'required'): PublishRoute {
  if (appReview === 'required') return 'operator_review';
  return approvalRequired(settings, 'apps') ? 'request_approval' : 'publish';
}
