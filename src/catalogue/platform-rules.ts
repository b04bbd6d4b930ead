// Pure rules of the platform versions the operator publishes, withdraws and restores outside a release
// (docs/operations.md "ops platform"): what refuses a publish, which status each move needs, and whose
// version a restored one becomes.
import { isDeepStrictEqual } from 'node:util';
import type { Manifest } from '../module/index.ts';
import type { VersionStatus } from './catalogue-rules.ts';

export interface Refusal {
  code: 'conflict' | 'not_found';
  message: string;
  details?: Record<string, unknown>;
}

export interface PublishFacts {
  name: string;
  version: string;
  /** The platform's versions of that app, any status. */
  platformVersions: readonly { version: string; status: VersionStatus }[];
  /** How many tenants have an app of their own under that name (any status). */
  tenantsWithName: number;
  /** --new-app: the operator means to create the app. */
  newApp: boolean;
}

/**
 * Why an operator's publish is refused, or null. The version must be new in any status (versions are
 * immutable); --new-app is needed exactly when the platform has no version of the app yet, so a typo
 * does not create an app and a new app is not mistaken for an existing one; a new platform app may not
 * take a name a tenant's own app has (an upload may not take a platform app's name either).
 */
export function publishRefusal(facts: PublishFacts): Refusal | null {
  const label = `${facts.name}@${facts.version}`;
  const existing = facts.platformVersions.find((v) => v.version === facts.version);
  if (existing)
    return {
      code: 'conflict',
      message: `${label} already exists (${existing.status}): raise the version`,
      details: { name: facts.name, version: facts.version, status: existing.status },
    };
  const known = facts.platformVersions.length > 0;
  if (!known && !facts.newApp)
    return {
      code: 'not_found',
      message: `the platform has no app named ${facts.name}: give --new-app to create it`,
    };
  if (known && facts.newApp)
    return {
      code: 'conflict',
      message: `the platform already has versions of ${facts.name}: publish without --new-app`,
    };
  if (!known && facts.tenantsWithName > 0)
    return {
      code: 'conflict',
      message: `${facts.tenantsWithName} tenant(s) have an app of their own named ${facts.name}: choose another name`,
      details: { tenants: facts.tenantsWithName },
    };
  return null;
}

/** What a withdrawal or a restore needs of the version's status, or null when it may move. */
export function moveRefusal(move: 'withdraw' | 'restore', status: VersionStatus): Refusal | null {
  const needed: VersionStatus = move === 'withdraw' ? 'published' : 'withdrawn';
  if (status === needed) return null;
  return { code: 'conflict', message: `the version is ${status}, not ${needed}` };
}

/**
 * Whose version a restored one becomes: the release's when the running release catalogue carries that
 * name and version with the same manifest (a later release that drops it withdraws it again), else the
 * operator's (no release withdraws it).
 */
export function restoredSource(stored: Manifest, inRelease: Manifest | null): 'release' | 'operator' {
  return inRelease !== null && isDeepStrictEqual(stored, inRelease) ? 'release' : 'operator';
}
