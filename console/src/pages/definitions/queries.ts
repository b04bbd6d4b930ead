// A workflow or a rule set as the API answers it (GET /workflow-definitions/:key, GET /rule-sets/:key):
// its published version and draft with their bodies and validation, and every version's dates.
import { api } from '../../api/client.ts';
import { useApi } from '../../api/query.ts';
import type { components } from '../../api/schema.ts';
import { definitionKeys } from '../approvals/queries.ts';

export type DefinitionVersion =
  | components['schemas']['WorkflowDefinitionVersion']
  | components['schemas']['RuleSetVersion'];

export const useWorkflow = (key: string) =>
  useApi(definitionKeys.one('workflow', key), (signal) =>
    api.GET('/workflow-definitions/{key}', { params: { path: { key } }, signal }),
  );

export const useRuleSet = (key: string) =>
  useApi(definitionKeys.one('rule_set', key), (signal) =>
    api.GET('/rule-sets/{key}', { params: { path: { key } }, signal }),
  );
