// Definition routes (docs/runs.md "Definitions"): workflows under /workflow-definitions, rule sets under
// /rule-sets, the same five operations each. Thin: parse, authorize, call service.ts, answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/pool.ts';
import { principalOf } from '../../http/auth.ts';
import { errors } from '../../http/responses.ts';
import type { DefinitionBody, DefinitionKind, RuleSetBody, WorkflowBody } from '../model.ts';
import { getDefinition, listDefinitions } from './reads.ts';
import { DefinitionKey, KeyParams, ListQuery, RuleSetSchemas, WorkflowSchemas } from './schemas.ts';
import {
  createDefinition,
  type DefinitionContext,
  publishDefinition,
  saveDefinitionDraft,
  type VersionView,
} from './service.ts';

export interface DefinitionRouteDeps {
  database: Database;
  config: Config;
}

const workflowExample: WorkflowBody = {
  steps: [
    {
      id: 'screen',
      type: 'call_app',
      install: 'screening',
      action: 'screen',
      input: { threshold: 85 },
      inputMapping: { 'person.name': 'subject.fullName' },
      outputKey: 'screening',
    },
    { id: 'rules', type: 'rule_set', ruleSet: 'onboarding', outputKey: 'rules' },
    {
      id: 'decide',
      type: 'decide',
      branches: [{ when: { path: 'screening.hits', gt: 0 }, outcome: 'review', riskScore: 70 }],
      otherwise: 'approve',
    },
  ],
};
const ruleSetExample: RuleSetBody = {
  rules: [
    { key: 'adult', type: 'condition', when: { path: 'subject.age', gte: 18 } },
    {
      key: 'sanctions',
      type: 'app',
      install: 'screening',
      action: 'screen',
      inputMapping: { 'person.name': 'subject.fullName' },
      resultPath: 'hits',
      failWhen: { gt: 0 },
    },
  ],
};

interface KindRoutes {
  kind: DefinitionKind;
  path: string;
  /** The operationIds' noun: listWorkflowDefinitions, createRuleSet… */
  noun: string;
  plural: string;
  text: string;
  example: DefinitionBody;
  schemas: typeof WorkflowSchemas;
}

const KINDS: KindRoutes[] = [
  {
    kind: 'workflow',
    path: '/workflow-definitions',
    noun: 'WorkflowDefinition',
    plural: 'WorkflowDefinitions',
    text: 'workflow',
    example: workflowExample,
    schemas: WorkflowSchemas,
  },
  {
    kind: 'rule_set',
    path: '/rule-sets',
    noun: 'RuleSet',
    plural: 'RuleSets',
    text: 'rule set',
    example: ruleSetExample,
    schemas: RuleSetSchemas as unknown as typeof WorkflowSchemas,
  },
];

/** A version as a caller who may not read definitions sees it: what was published, not what it says. */
function withoutBody({ body: _body, installNames: _names, validation: _validation, ...rest }: VersionView) {
  return rest;
}

/** The definitions' context of a request: who asks, and what validation reads of the deployment. */
export const definitionContextOf = (
  deps: DefinitionRouteDeps,
  request: FastifyRequest,
): DefinitionContext => ({
  database: deps.database,
  principal: principalOf(request),
  requestId: request.id,
  settings: { webhookBase: deps.config.webhookPublicUrl },
});

export function definitionRoutes(deps: DefinitionRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const context = (request: FastifyRequest) => definitionContextOf(deps, request);

    for (const k of KINDS) {
      const tags = ['definitions'];
      const bodyOf = (body: unknown) => body as DefinitionBody;

      app.get(
        k.path,
        {
          config: { permission: 'definitions:read' },
          schema: {
            tags,
            operationId: `list${k.plural}`,
            summary: `The tenant’s ${k.text}s by key, with their published and draft version numbers`,
            querystring: ListQuery,
            response: { 200: k.schemas.Page },
          },
        },
        async (request) => listDefinitions(context(request), k.kind, request.query),
      );

      app.post(
        k.path,
        {
          config: { permission: 'definitions:write' },
          schema: {
            tags,
            operationId: `create${k.noun}`,
            summary: `Create a ${k.text} with its first draft (version 1), answered with its validation`,
            description: `A draft is saved even when its validation has errors; 409 definition_key_taken when the key is the tenant’s already.`,
            body: Type.Object(
              { key: DefinitionKey, body: k.schemas.Body },
              { additionalProperties: false, examples: [{ key: 'onboarding', body: k.example }] },
            ),
            response: { 201: k.schemas.Version, ...errors('definition_key_taken') },
          },
        },
        async (request, reply) => {
          const saved = await createDefinition(
            context(request),
            k.kind,
            request.body.key,
            bodyOf(request.body.body),
          );
          return reply.status(201).send(saved);
        },
      );

      app.get(
        `${k.path}/:key`,
        {
          config: { permission: 'definitions:read' },
          schema: {
            tags,
            operationId: `get${k.noun}`,
            summary: `One ${k.text}: its current published version and its draft, validated now, and every version`,
            params: KeyParams,
            response: { 200: k.schemas.Definition, ...errors('not_found') },
          },
        },
        async (request) => getDefinition(context(request), k.kind, request.params.key),
      );

      app.put(
        `${k.path}/:key/draft`,
        {
          config: { permission: 'definitions:write' },
          schema: {
            tags,
            operationId: `save${k.noun}Draft`,
            summary: `Write the ${k.text}’s draft: replaces it, or starts one after the published version`,
            description:
              'The body is the definition’s body. A published version never changes. 409 conflict (details.approvalId) while an approval request pins the draft: withdraw it first.',
            params: KeyParams,
            body: k.schemas.bodyWithExample(k.example),
            response: { 200: k.schemas.Version, ...errors('not_found', 'conflict') },
          },
        },
        async (request) =>
          saveDefinitionDraft(context(request), k.kind, request.params.key, bodyOf(request.body)),
      );

      app.post(
        `${k.path}/:key/publish`,
        {
          config: { permission: 'definitions:publish' },
          schema: {
            tags,
            operationId: `publish${k.noun}`,
            summary: `Publish the ${k.text}’s draft: it becomes the current published version, or waits for approval`,
            description:
              '400 validation_error (details.issues with path, message and code) while the draft has validation errors; 409 conflict when there is no draft, or while an approval request of the ' +
              `${k.text} is open (details.approvalId). When the tenant requires approval for definitions the draft is not published: 202 { version, approval } with the request opened (GET /definition-approvals/:id). ` +
              'The version carries the body, installNames and validation only for a caller holding definitions:read.',
            params: KeyParams,
            response: {
              200: k.schemas.Published,
              202: k.schemas.Held,
              ...errors('not_found', 'conflict'),
            },
          },
        },
        async (request, reply) => {
          const outcome = await publishDefinition(context(request), k.kind, request.params.key);
          const seen = (version: VersionView) =>
            principalOf(request).permissions.has('definitions:read') ? version : withoutBody(version);
          if ('approval' in outcome) {
            return reply.status(202).send({ version: seen(outcome.requested), approval: outcome.approval });
          }
          return seen(outcome.published);
        },
      );
    }
  };
}
