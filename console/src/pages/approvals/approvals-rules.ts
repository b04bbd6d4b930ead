// The approvals pages' rules: the definition approvals' filters read from the URL, where each request
// leads, and who may withdraw one. Pure.
import type { Principal } from '../../auth/claims.ts';
import { can } from '../../auth/permissions.ts';

export type DefinitionKind = 'workflow' | 'rule_set';
export type ApprovalStatus = 'open' | 'approved' | 'rejected' | 'withdrawn';

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['open', 'approved', 'rejected', 'withdrawn'];
export const DEFINITION_KINDS: readonly DefinitionKind[] = ['workflow', 'rule_set'];
/** A definition's key as the API takes it (a key filter that is not one would be refused). */
const KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface DefinitionFilters {
  status?: ApprovalStatus;
  kind?: DefinitionKind;
  key?: string;
}

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  values.find((v) => v === value);

/** The filters the URL names, each kept only when the API takes it (anything else: unfiltered). */
export function definitionFilters(filter: (name: string) => string | undefined): DefinitionFilters {
  const key = filter('key')?.trim().toLowerCase();
  return {
    ...(oneOf(APPROVAL_STATUSES, filter('status'))
      ? { status: oneOf(APPROVAL_STATUSES, filter('status')) }
      : {}),
    ...(oneOf(DEFINITION_KINDS, filter('kind')) ? { kind: oneOf(DEFINITION_KINDS, filter('kind')) } : {}),
    ...(key && KEY.test(key) ? { key } : {}),
  };
}

export const definitionNoun = (kind: DefinitionKind): string =>
  kind === 'rule_set' ? 'rule set' : 'workflow';

/** The console's page of a definition, or of one version of it (the paths the API's activity links name). */
export function definitionPath(kind: DefinitionKind, key: string, version?: number): string {
  const base = `/${kind === 'rule_set' ? 'rule-sets' : 'workflows'}/${encodeURIComponent(key)}`;
  return version === undefined ? base : `${base}/versions/${version}`;
}

export const definitionApprovalPath = (id: string) => `/approvals/definitions/${encodeURIComponent(id)}`;

/** An install change's page (the installs area's), the path the API's attention item names. */
export const changePath = (installName: string, id: string) =>
  `/apps/installs/${encodeURIComponent(installName)}/changes/${encodeURIComponent(id)}`;

/**
 * Whether the principal may withdraw a request: its requester, or an administrator holding
 * tenants:settings (definition approvals and install changes alike), beside the permission to act at all.
 */
export function mayWithdraw(
  principal: Principal | null,
  requestedBy: string,
  needs: 'definitions:publish' | 'apps:write',
): boolean {
  if (!principal || !can(principal, needs)) return false;
  return principal.subject === requestedBy || can(principal, 'tenants:settings');
}

/** A version number from the URL (`/workflows/<key>/versions/<n>`), or null when it is not one. */
export function versionNumber(text: string | undefined): number | null {
  return text !== undefined && /^[1-9]\d{0,8}$/.test(text) ? Number(text) : null;
}
