// Schemas of the run and evaluation routes (docs/runs.md): bodies in, answers out.
import { Type } from 'typebox';
import { pageQuery } from '../http/paging.ts';
import { dateTime, nullable } from '../http/responses.ts';
import { timeRangeQuery } from '../http/time-range.ts';

const Key = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' });
const SubjectId = Type.String({ minLength: 1, maxLength: 200 });

export const RunError = Type.Object(
  {
    code: Type.String({
      description: 'A code of the error catalogue (docs/errors.md), e.g. unknown_install or app_call_failed',
    }),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false, title: 'RunError' },
);

const RunStatus = Type.Union([
  Type.Literal('running'),
  Type.Literal('waiting_callback'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
const StepStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('skipped'),
  Type.Literal('cancelled'),
]);

export const StartRunBody = Type.Object(
  {
    workflow: Key,
    subjectId: SubjectId,
    context: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The run’s initial context; {} when left out',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { workflow: 'onboarding', subjectId: 'applicant-42', context: { applicant: { name: 'Ada' } } },
    ],
  },
);

/** The Idempotency-Key header of a start (docs/runs.md "Starting a run twice"). */
export const StartRunHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      pattern: '^[!-~]+$',
      description:
        'Up to 255 visible ASCII characters (a UUID is a good one): the same key and request within 24 hours answer the run the first start made',
    }),
  ),
});

export const RunStep = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'call_app, rule_set or decide' }),
    status: StepStatus,
    attempts: Type.Integer({ description: 'Attempts a call_app step made' }),
    error: nullable(RunError),
    startedAt: nullable(dateTime()),
    completedAt: nullable(dateTime()),
  },
  { additionalProperties: false },
);

const runFields = {
  id: Type.String({ format: 'uuid' }),
  workflow: Type.String({ description: 'The workflow’s key' }),
  version: Type.Integer({ description: 'The published version the run runs' }),
  subjectId: Type.String(),
  status: RunStatus,
  error: nullable(RunError),
  createdAt: dateTime(),
  createdBy: Type.String(),
  updatedAt: dateTime(),
  completedAt: nullable(dateTime()),
};

export const RunSummary = Type.Object(runFields, {
  additionalProperties: false,
  title: 'WorkflowRunSummary',
});

export const Run = Type.Object(
  {
    ...runFields,
    context: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Literal('[redacted]')], {
      description: 'The run’s context; "[redacted]" without runs:context',
    }),
    steps: Type.Array(RunStep),
    traceUrl: Type.Optional(
      Type.String({
        description:
          'A link to the run’s trace (TRACE_URL_TEMPLATE with its trace id): only for ops:read holders, when the deployment sets the template and the run’s trace was recorded',
      }),
    ),
  },
  { additionalProperties: false, title: 'WorkflowRun' },
);

export const RunParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const RunListQuery = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(RunStatus),
    workflow: Type.Optional(Key),
    subjectId: Type.Optional(SubjectId),
    ...timeRangeQuery('createdAt'),
  },
  { additionalProperties: false },
);

export const EvaluateBody = Type.Object(
  {
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'What the rules read' }),
    dryRun: Type.Optional(Type.Boolean({ default: false, description: 'Skip app rules, as backtests do' })),
    subjectId: Type.Optional(SubjectId),
  },
  { additionalProperties: false, examples: [{ data: { applicant: { name: 'Ada', age: 36 } } }] },
);

export const RuleSetParams = Type.Object({ key: Key }, { additionalProperties: false });

export const Evaluation = Type.Object(
  {
    ruleSet: Type.Object({ key: Type.String(), version: Type.Integer() }, { additionalProperties: false }),
    passed: Type.Boolean({ description: 'No rule failed or ended in error' }),
    rules: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          type: Type.Union([Type.Literal('condition'), Type.Literal('app')]),
          status: Type.Union([
            Type.Literal('passed'),
            Type.Literal('failed'),
            Type.Literal('error'),
            Type.Literal('skipped'),
          ]),
          value: Type.Optional(Type.Unknown({ description: 'The value the rule compared' })),
          error: Type.Optional(RunError),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'RuleSetEvaluation' },
);
