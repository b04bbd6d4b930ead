// Run and evaluation routes (docs/runs.md): POST/GET /workflow-runs, GET /workflow-runs/:id,
// POST /workflow-runs/:id/cancel, POST /rule-sets/:key/evaluate. Thin: parse, authorize, call the service.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type AttemptDeps, attemptDepsOf } from '../calls/index.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError, forbidden } from '../http/errors.ts';
import { pageOf } from '../http/paging.ts';
import { errors } from '../http/responses.ts';
import { timeBoundsOf } from '../http/time-range.ts';
import type { RunnerClient } from '../runner/index.ts';
import type { RunsEngine } from './engine-client.ts';
import { evaluateRuleSet } from './evaluation.ts';
import type { RuleSetBody } from './model.ts';
import { type DefinitionVersionRow, publishedVersion } from './published.ts';
import {
  EvaluateBody,
  Evaluation,
  RuleSetParams,
  Run,
  RunListQuery,
  RunParams,
  RunSummary,
  StartRunBody,
  StartRunHeaders,
} from './schemas.ts';
import { cancelRun, getRun, listRuns, type RunContext, startRun } from './service.ts';

export interface RunRouteDeps {
  database: Database;
  config: Config;
  /** The runner app rules call through; null when apps are off (no runner or no module storage). */
  runner: RunnerClient | null;
  engine: RunsEngine;
}

const tags = ['workflow-runs'];

export function runRoutes(deps: RunRouteDeps): FastifyPluginAsyncTypebox {
  const contextOf = (request: FastifyRequest): RunContext => {
    const principal = principalOf(request);
    return {
      database: deps.database,
      engine: deps.engine,
      tenantId: principal.tenantId,
      actorId: principal.subject,
      seesContext: principal.permissions.has('runs:context'),
      traceUrlTemplate: principal.permissions.has('ops:read') ? deps.config.telemetry.traceUrlTemplate : null,
    };
  };
  const attemptDeps = (): AttemptDeps => {
    if (!deps.runner)
      throw new ApiError('apps_unavailable', 'this deployment has no app runner or no module storage');
    return attemptDepsOf(deps.config, deps.database, deps.runner);
  };

  return async (app) => {
    app.post(
      '/workflow-runs',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags,
          operationId: 'startWorkflowRun',
          summary: 'Start a run of a workflow’s current published version on a subject',
          description:
            'With an Idempotency-Key, a start repeating the request of a start under that key within 24 hours answers 200 with the run that start made (header Idempotent-Replayed: true) instead of starting another; the key with another request is 409 idempotency_conflict.',
          headers: StartRunHeaders,
          body: StartRunBody,
          // 404 no such workflow; 409 conflict (none of its versions is published) or idempotency_conflict
          response: { 200: Run, 201: Run, ...errors('not_found', 'conflict', 'idempotency_conflict') },
        },
      },
      async (request, reply) => {
        const key = request.headers['idempotency-key'];
        const started = await startRun(contextOf(request), request.body, key);
        if (started.replayed) reply.header('idempotent-replayed', 'true');
        return reply.status(started.replayed ? 200 : 201).send(started.run);
      },
    );

    app.get(
      '/workflow-runs',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'listWorkflowRuns',
          summary: 'The tenant’s runs, newest first (filters status, workflow, subjectId, from and to)',
          querystring: RunListQuery,
          response: { 200: pageOf(RunSummary) },
        },
      },
      async (request) => {
        const { from, to, ...query } = request.query;
        return listRuns(contextOf(request), { ...query, ...timeBoundsOf({ from, to }) });
      },
    );

    app.get(
      '/workflow-runs/:id',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'getWorkflowRun',
          summary:
            'A run: status, context (runs:context), each step’s status, attempts and error, and its trace’s link (ops:read)',
          params: RunParams,
          response: { 200: Run, ...errors('not_found') },
        },
      },
      async (request) => getRun(contextOf(request), request.params.id),
    );

    app.post(
      '/workflow-runs/:id/cancel',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags,
          operationId: 'cancelWorkflowRun',
          summary: 'Cancel a running run (its call in flight too)',
          params: RunParams,
          // 409 conflict: the run already ended
          response: { 200: Run, ...errors('not_found', 'conflict') },
        },
      },
      async (request) => cancelRun(contextOf(request), request.params.id),
    );

    app.post(
      '/rule-sets/:key/evaluate',
      {
        config: { permission: 'definitions:read' },
        schema: {
          tags: ['rule-sets'],
          operationId: 'evaluateRuleSet',
          summary: 'Evaluate a rule set’s published version against data (app rules need apps:write)',
          params: RuleSetParams,
          body: EvaluateBody,
          // 403 app rules without apps:write; 404 no such rule set; 409 none published; 503 no runner
          response: { 200: Evaluation, ...errors('not_found', 'conflict', 'apps_unavailable') },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const dryRun = request.body.dryRun ?? false;
        // Read once: whether it calls apps here, then evaluated (none published: the evaluation's 404/409).
        const version = await publishedVersion(
          deps.database.db,
          principal.tenantId,
          'rule_set',
          request.params.key,
        );
        const callsApps = !dryRun && version !== null && hasAppRules(version);
        // App rules call installs (metered, quota-checked): like a test call, they need apps:write.
        if (callsApps && !principal.permissions.has('apps:write')) {
          throw forbidden('evaluating app rules needs the apps:write permission (dryRun: true skips them)', {
            permission: 'apps:write',
          });
        }
        return evaluateRuleSet(
          { database: deps.database, attempt: callsApps ? attemptDeps() : null },
          {
            tenantId: principal.tenantId,
            key: request.params.key,
            data: request.body.data,
            dryRun,
            subjectId: request.body.subjectId ?? null,
            ...(version ? { version } : {}),
          },
        );
      },
    );
  };
}

const hasAppRules = (version: DefinitionVersionRow): boolean =>
  (version.body as RuleSetBody).rules.some((r) => r.type === 'app');
