// The definitions' bodies and answers as schemas (docs/runs.md "Definitions"): exactly the shapes of
// model.ts, strict (an unknown field is refused at its pointer). Steps and rules are told apart by their
// type (a oneOf with a discriminator, so a refusal names only the branch the type picks).
import { type Static, type TSchema, Type } from 'typebox';
import { pageOf, pageQuery } from '../../http/paging.ts';
import { dateTime, nullable } from '../../http/responses.ts';
import type {
  Comparison,
  Condition,
  DecideStep,
  Rule,
  RuleSetBody,
  WorkflowBody,
  WorkflowStep,
} from '../model.ts';
import type { ApprovalView } from './approvals-rules.ts';
import { ERROR_CODES, type ValidationCode, WARNING_CODES } from './validation.ts';

export const MAX_STEPS = 50;
export const MAX_RULES = 100;
export const MAX_BRANCHES = 50;
export const MAX_MAPPINGS = 50;

const strict = { additionalProperties: false } as const;

export const DefinitionKey = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
  description: '1 to 64 lower-case letters, digits, underscores and hyphens, the first a letter or digit',
});
/** As install names are written (the install name rule of src/module/names.ts). */
const InstallName = Type.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,99}$',
  description: 'The install’s name (its current one, or a former name it keeps as an alias)',
});
const ActionName = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,99}$' });
const StepId = Type.String({
  pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$',
  description: 'Unique in the workflow',
});
const RuleKey = Type.String({
  pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$',
  description: 'Unique in the rule set',
});
const OutputKey = Type.String({
  pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
  description: 'The run context key the result is stored under',
});
const DOT_PATH = '^[^.]+(\\.[^.]+)*$';
const DotPath = (description: string) => Type.String({ pattern: DOT_PATH, maxLength: 200, description });

const Input = Type.Record(Type.String(), Type.Unknown(), {
  description: 'The literal input, laid down first',
});
const InputMapping = Type.Record(Type.String(), DotPath('A dot path into the run context or the rule data'), {
  propertyNames: { pattern: DOT_PATH, maxLength: 200 },
  maxProperties: MAX_MAPPINGS,
  description: 'Input field (dots set nested fields) → the dot path its value is read from',
});

const appCall = {
  install: InstallName,
  action: ActionName,
  input: Type.Optional(Input),
  inputMapping: Type.Optional(InputMapping),
};
const Fallback = Type.Object(appCall, {
  ...strict,
  description: 'Another install taking the call when this one is out of service',
});
const Retry = Type.Object(
  {
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    backoffMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  },
  { ...strict, description: 'The step’s own retry, within the action’s' },
);

const comparisons = {
  equals: Type.Optional(Type.Unknown()),
  notEquals: Type.Optional(Type.Unknown()),
  in: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: 100 })),
  notIn: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: 100 })),
  lt: Type.Optional(Type.Number()),
  lte: Type.Optional(Type.Number()),
  gt: Type.Optional(Type.Number()),
  gte: Type.Optional(Type.Number()),
  exists: Type.Optional(Type.Boolean()),
};
const COMPARISON_TEXT =
  'Exactly one of equals, notEquals (strict JSON equality), in, notIn (a list), lt, lte, gt, gte (numbers), exists';
export const ComparisonSchema = Type.Unsafe<Comparison>(
  Type.Object(comparisons, { ...strict, minProperties: 1, maxProperties: 1, description: COMPARISON_TEXT }),
);
const ConditionSchema = Type.Unsafe<Condition>(
  Type.Object(
    { path: DotPath('Where the compared value is read'), ...comparisons },
    { ...strict, minProperties: 2, maxProperties: 2, description: `path, and ${COMPARISON_TEXT}` },
  ),
);
const Outcome = Type.Union([Type.Literal('approve'), Type.Literal('review'), Type.Literal('decline')]);

/** A oneOf told apart by `type`: only the branch the type names is checked. */
const byType = <T>(branches: TSchema[], description: string) =>
  Type.Unsafe<T>({ type: 'object', oneOf: branches, discriminator: { propertyName: 'type' }, description });

const CallAppStep = Type.Object(
  {
    id: StepId,
    type: Type.Literal('call_app'),
    ...appCall,
    outputKey: OutputKey,
    retry: Type.Optional(Retry),
    fallback: Type.Optional(Fallback),
  },
  { ...strict, title: 'CallAppStep' },
);
const RuleSetStep = Type.Object(
  { id: StepId, type: Type.Literal('rule_set'), ruleSet: DefinitionKey, outputKey: OutputKey },
  { ...strict, title: 'RuleSetStep' },
);
const DecideStepSchema = Type.Unsafe<DecideStep>(
  Type.Object(
    {
      id: StepId,
      type: Type.Literal('decide'),
      branches: Type.Array(
        Type.Object(
          {
            when: ConditionSchema,
            outcome: Outcome,
            riskScore: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
          },
          strict,
        ),
        { minItems: 1, maxItems: MAX_BRANCHES },
      ),
      otherwise: Outcome,
      riskScorePath: Type.Optional(DotPath('A number in the context that becomes riskScore')),
    },
    { ...strict, title: 'DecideStep' },
  ),
);

export const WorkflowBodySchema = Type.Unsafe<WorkflowBody>(
  Type.Object(
    {
      steps: Type.Array(byType<WorkflowStep>([CallAppStep, RuleSetStep, DecideStepSchema], 'A step'), {
        minItems: 1,
        maxItems: MAX_STEPS,
      }),
    },
    { ...strict, $id: 'WorkflowBody', title: 'WorkflowBody' },
  ),
);

const ConditionRule = Type.Object(
  { key: RuleKey, type: Type.Literal('condition'), when: ConditionSchema },
  { ...strict, title: 'ConditionRule' },
);
const AppRule = Type.Object(
  {
    key: RuleKey,
    type: Type.Literal('app'),
    ...appCall,
    resultPath: DotPath('Where in the action’s output the compared value is read'),
    failWhen: ComparisonSchema,
    fallback: Type.Optional(Fallback),
  },
  { ...strict, title: 'AppRule' },
);

export const RuleSetBodySchema = Type.Unsafe<RuleSetBody>(
  Type.Object(
    {
      rules: Type.Array(byType<Rule>([ConditionRule, AppRule], 'A rule'), {
        minItems: 1,
        maxItems: MAX_RULES,
      }),
    },
    { ...strict, $id: 'RuleSetBody', title: 'RuleSetBody' },
  ),
);

// ---- answers ------------------------------------------------------------------------------------------

const Issue = (codes: readonly string[]) =>
  Type.Object(
    {
      code: Type.Unsafe<ValidationCode>({ type: 'string', enum: [...codes] }),
      path: Type.String({ description: 'A JSON Pointer into the body' }),
      message: Type.String(),
    },
    strict,
  );
export const ValidationSchema = Type.Object(
  {
    errors: Type.Array(Issue(ERROR_CODES), { description: 'A version with errors cannot be published' }),
    warnings: Type.Array(Issue(WARNING_CODES)),
  },
  {
    ...strict,
    $id: 'DefinitionValidation',
    title: 'DefinitionValidation',
    description: 'The body checked against the tenant’s installs and rule sets as they are now',
  },
);

const Status = Type.Union([Type.Literal('draft'), Type.Literal('published')]);
const versionFields = {
  version: Type.Integer({ minimum: 1 }),
  status: Status,
  createdAt: dateTime('For a draft: its last save'),
  createdBy: Type.String({ description: 'For a draft: who saved it last' }),
  publishedAt: nullable(dateTime()),
  publishedBy: nullable(Type.String()),
};
const VersionSummary = Type.Object(versionFields, strict);

/** A reference to a schema registered on the server (definitionSchemas): one component in the description. */
const ref = <T>(id: string, options: Record<string, unknown> = {}) => Type.Unsafe<T>(Type.Ref(id, options));

function kindSchemas(kind: 'workflow' | 'rule_set', body: string, title: string) {
  const Kind = Type.Literal(kind);
  const VersionSchema = Type.Object(
    {
      kind: Kind,
      key: DefinitionKey,
      ...versionFields,
      body: ref<unknown>(body),
      installNames: Type.Array(Type.String(), {
        description: 'The install names the body calls, lower case',
      }),
      validation: ref<Static<typeof ValidationSchema>>('DefinitionValidation'),
    },
    { ...strict, $id: `${title}Version`, title: `${title}Version` },
  );
  const Version = ref<Static<typeof VersionSchema>>(`${title}Version`);
  // A publisher without definitions:read learns that the version was published, never its body.
  const Published = Type.Object(
    {
      kind: Kind,
      key: DefinitionKey,
      ...versionFields,
      body: Type.Optional(ref<unknown>(body)),
      installNames: Type.Optional(Type.Array(Type.String())),
      validation: Type.Optional(ref<Static<typeof ValidationSchema>>('DefinitionValidation')),
    },
    {
      ...strict,
      title: `${title}Published`,
      description:
        'The version published; body, installNames and validation only for a caller holding definitions:read',
    },
  );
  // A publish held for approval: the version pinned (seen as the publish answer shows it) and the request.
  const Held = Type.Object(
    { version: Published, approval: ref<ApprovalView>('DefinitionApproval') },
    {
      ...strict,
      title: `${title}PublishHeld`,
      description:
        'The draft the request pins (still a draft: published once approved) and the request opened',
    },
  );
  const Definition = Type.Object(
    {
      kind: Kind,
      key: DefinitionKey,
      createdAt: dateTime(),
      createdBy: Type.String(),
      published: nullable(Version, { description: 'The current published version, or null' }),
      draft: nullable(Version, { description: 'The draft, or null' }),
      versions: Type.Array(VersionSummary, { description: 'Every version, newest first' }),
    },
    { ...strict, title },
  );
  const Summary = Type.Object(
    {
      kind: Kind,
      key: DefinitionKey,
      createdAt: dateTime(),
      createdBy: Type.String(),
      publishedVersion: nullable(Type.Integer()),
      publishedAt: nullable(dateTime()),
      draftVersion: nullable(Type.Integer()),
    },
    { ...strict, title: `${title}Summary` },
  );
  return {
    VersionSchema,
    Version,
    Published,
    Held,
    Definition,
    Page: pageOf(Summary),
    Body: ref<unknown>(body),
    /** The body as a draft's request takes it, with an example. */
    // allOf: the description keeps no keyword beside a $ref, so the example would be lost.
    bodyWithExample: (example: unknown) =>
      Type.Unsafe<unknown>({ allOf: [Type.Ref(body)], examples: [example] }),
  };
}

export const WorkflowSchemas = kindSchemas('workflow', 'WorkflowBody', 'WorkflowDefinition');
export const RuleSetSchemas = kindSchemas('rule_set', 'RuleSetBody', 'RuleSet');

/**
 * The schemas the definition routes refer to by id, registered once on the server (src/api/index.ts) so
 * the description names each once, under #/components/schemas.
 */
export const definitionSchemas: TSchema[] = [
  WorkflowBodySchema,
  RuleSetBodySchema,
  ValidationSchema,
  WorkflowSchemas.VersionSchema,
  RuleSetSchemas.VersionSchema,
];

export const KeyParams = Type.Object({ key: DefinitionKey });
export const ListQuery = Type.Object(pageQuery(), strict);
