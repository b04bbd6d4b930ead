// The approvals pages' reads and decisions: definitions' approval requests (GET /definition-approvals,
// one by id) and install changes (GET /app-install-changes), each decided by POST …/{approve,reject,withdraw}.
import { api } from '../../api/client.ts';
import { REFRESH, useApi, useApiMutation } from '../../api/query.ts';
import type { components, paths } from '../../api/schema.ts';
import { homeKeys } from '../home/queries.ts';

export type DefinitionApproval = components['schemas']['DefinitionApproval'];
export type DefinitionApprovalQuery = NonNullable<
  paths['/definition-approvals']['get']['parameters']['query']
>;
export type InstallChange =
  paths['/app-install-changes']['get']['responses'][200]['content']['application/json']['items'][number];

export const approvalKeys = {
  /** Every definition approval read (lists and single ones), and the definitions they publish. */
  definitions: () => ['definition-approvals'] as const,
  definitionList: (query: DefinitionApprovalQuery) => ['definition-approvals', 'list', query] as const,
  definition: (id: string) => ['definition-approvals', 'one', id] as const,
  /** Every install change read. */
  changes: () => ['app-install-changes'] as const,
  changeList: (query: { limit: number; offset: number }) => ['app-install-changes', 'open', query] as const,
};

/** The definitions' pages read the definition an approval publishes: a decision refreshes them too. */
export const definitionKeys = {
  all: () => ['definitions'] as const,
  one: (kind: DefinitionApproval['kind'], key: string) => ['definitions', kind, key] as const,
};

const HOME = [homeKeys.attention(), homeKeys.notifications(), ['activity']];

export const useDefinitionApprovals = (query: DefinitionApprovalQuery) =>
  useApi(
    approvalKeys.definitionList(query),
    (signal) => api.GET('/definition-approvals', { params: { query }, signal }),
    { refetchInterval: (query.status ?? 'open') === 'open' ? REFRESH.inMotion : false },
  );

export const useDefinitionApproval = (id: string) =>
  useApi(
    approvalKeys.definition(id),
    (signal) => api.GET('/definition-approvals/{id}', { params: { path: { id } }, signal }),
    { refetchInterval: REFRESH.inMotion },
  );

export type DefinitionDecision = 'approve' | 'reject' | 'withdraw';

export const useDecideDefinition = () =>
  useApiMutation(
    ({ id, decision, body }: { id: string; decision: DefinitionDecision; body: { comment?: string } }) => {
      const params = { path: { id } };
      if (decision === 'approve') return api.POST('/definition-approvals/{id}/approve', { params, body });
      if (decision === 'reject') return api.POST('/definition-approvals/{id}/reject', { params, body });
      return api.POST('/definition-approvals/{id}/withdraw', { params, body });
    },
    [approvalKeys.definitions(), definitionKeys.all(), ...HOME],
  );

export const useOpenInstallChanges = (query: { limit: number; offset: number }) =>
  useApi(
    approvalKeys.changeList(query),
    (signal) => api.GET('/app-install-changes', { params: { query: { status: 'open', ...query } }, signal }),
    { refetchInterval: REFRESH.inMotion },
  );

export type ChangeDecision = 'approve' | 'reject' | 'withdraw';

export const useDecideChange = () =>
  useApiMutation(
    ({
      install,
      id,
      decision,
      body,
    }: {
      install: string;
      id: string;
      decision: ChangeDecision;
      body: { comment?: string };
    }) => {
      const params = { path: { install, id } };
      if (decision === 'approve')
        return api.POST('/app-installs/{install}/changes/{id}/approve', { params, body });
      if (decision === 'reject')
        return api.POST('/app-installs/{install}/changes/{id}/reject', { params, body });
      // Withdrawing takes no body.
      return api.POST('/app-installs/{install}/changes/{id}/withdraw', { params });
    },
    [approvalKeys.changes(), ['apps'], ['installs'], ...HOME],
  );
