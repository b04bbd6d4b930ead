// What the install routes answer, as schemas (field lists in docs/installs.md): the install view, the
// install change, the cache listing, the limits record and the smaller answers. Fastify serialises the
// answers with them (a field the view adds and these lack is dropped), and the OpenAPI description is
// generated from them, so each mirrors its view function field for field.
import { Type } from 'typebox';
import { VersionSummary } from '../catalogue/schemas.ts';
import { pageOf } from '../http/paging.ts';
import { dateTime, nullable } from '../http/responses.ts';
import { MAX_BUDGETS_PER_INSTALL } from './limits/limits.ts';
import { BUDGET_METRICS, BUDGET_PERIODS } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Names = Type.Array(Type.String());
const Config = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Validated against the version’s configSchema',
});

/** The install change: a held save, and its decision once taken. */
export const ChangeViewSchema = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    installId: nullable(Uuid),
    installName: Type.String(),
    versionId: Uuid,
    config: Config,
    enabled: Type.Boolean(),
    hosts: Names,
    hostsAdded: Names,
    origin: Type.Union([Type.Literal('save'), Type.Literal('auto_upgrade')]),
    needsAdded: Type.Array(Type.String(), { description: 'Needs the change adds: documents' }),
    handlesAdded: Type.Array(Type.String(), { description: 'Exports the change adds: webhook, handoff' }),
    newInstall: Type.Boolean(),
    installUpdatedAt: dateTime(),
    approvalSettings: Type.Object(
      { required: Type.Boolean(), fourEyes: Type.Boolean() },
      { additionalProperties: false },
    ),
    requestedBy: Type.String(),
    requestedAt: dateTime(),
    comment: nullable(Type.String()),
    decidedBy: nullable(Type.String()),
    decidedAt: nullable(dateTime()),
    decision: nullable(
      Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('withdrawn')]),
    ),
    decisionComment: nullable(Type.String()),
  },
  { additionalProperties: false, title: 'InstallChange' },
);

/** The install's own circuit settings; null takes the deployment's value. */
export const CircuitSettingsSchema = Type.Object(
  { failureThreshold: nullable(Type.Integer()), openSeconds: nullable(Type.Integer()) },
  { additionalProperties: false },
);

export const CircuitSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half_open')]),
    failures: Type.Integer({ minimum: 0, description: 'Outages in a row' }),
    since: nullable(dateTime()),
    settings: nullable(CircuitSettingsSchema),
    defaults: Type.Object(
      { failureThreshold: Type.Integer(), openSeconds: Type.Integer() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const DefinitionRef = Type.Object(
  {
    kind: Type.Union([Type.Literal('workflow'), Type.Literal('rule_set')]),
    key: Type.String(),
    version: Type.Integer({ description: 'The current published version' }),
  },
  { additionalProperties: false },
);

/** The install's automatic upgrade (docs/upgrades.md); upgrade/upgrade-rules.ts upgradeView. */
export const UpgradeSchema = Type.Object(
  {
    target: nullable(Type.Object({ id: Uuid, version: Type.String() }, { additionalProperties: false }), {
      description: 'The version the platform moves the install to next; null: nothing to move to',
    }),
    rollback: Type.Boolean({
      description: 'The target is below the version the install runs, which is withdrawn or blocked',
    }),
    hostsAdded: Type.Array(Type.String(), { description: 'Hosts the move adds to the approved ones' }),
    hostsRemoved: Type.Array(Type.String(), {
      description: 'Approved hosts the target no longer calls: dropped with the move',
    }),
    needsAdded: Type.Array(Type.Literal('documents'), { description: 'Needs the move adds' }),
    handlesAdded: Type.Array(Type.Union([Type.Literal('webhook'), Type.Literal('handoff')]), {
      description: 'Handlers the move adds',
    }),
    waitingFor: nullable(
      Type.Union([
        Type.Literal('approval'),
        Type.Literal('secrets'),
        Type.Literal('config'),
        Type.Literal('actions'),
        Type.Literal('declined'),
      ]),
      { description: 'What the move waits for; null: the next sweep moves it (or there is no target)' },
    ),
    issues: Type.Array(
      Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false }),
      { description: 'What the target refuses in the install’s config (waitingFor config)' },
    ),
    missingSecrets: Type.Array(Type.String(), {
      description: 'Secrets the target requires that are not stored (waitingFor secrets)',
    }),
    missingActions: Type.Array(
      Type.Object(
        {
          action: Type.String(),
          reason: Type.Union([Type.Literal('absent'), Type.Literal('asynchronous')], {
            description:
              'absent: the target has no such action; asynchronous: a rule calls it and the target answers it through a webhook',
          }),
          calledBy: Type.Array(DefinitionRef),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Actions published definitions call that the target no longer answers (waitingFor actions)',
      },
    ),
  },
  {
    additionalProperties: false,
    title: 'InstallUpgrade',
    description: 'Present when autoUpgrade is compatible',
  },
);

/** The install view: the install unfolded with its version, secrets, change and circuit. */
export const InstallViewSchema = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    name: Type.String(),
    appName: Type.String(),
    versionId: Uuid,
    version: VersionSummary,
    autoUpgrade: Type.Union([Type.Literal('off'), Type.Literal('compatible')]),
    upgradedFromVersionId: nullable(Uuid),
    enabled: Type.Boolean(),
    config: Config,
    hosts: Names,
    createdAt: dateTime(),
    updatedAt: dateTime(),
    requiredSecrets: Names,
    storedSecrets: Names,
    missingSecrets: Names,
    updateAvailable: Type.Boolean(),
    webhookUrl: nullable(Type.String()),
    pendingChange: nullable(ChangeViewSchema),
    aliases: Names,
    upgrade: Type.Optional(UpgradeSchema),
    circuit: CircuitSchema,
  },
  { additionalProperties: false, title: 'InstallView' },
);

export const InstallListSchema = Type.Object(
  { items: Type.Array(InstallViewSchema) },
  { additionalProperties: false },
);

/** 202: the save waits for a decision; the install as it serves meanwhile, and the change opened. */
export const HeldSaveSchema = Type.Object(
  { install: InstallViewSchema, change: ChangeViewSchema },
  { additionalProperties: false, title: 'HeldSave' },
);

export const ChangePageSchema = pageOf(ChangeViewSchema);

const DefinitionKind = Type.Union([Type.Literal('workflow'), Type.Literal('rule_set')]);
const Definition = { kind: DefinitionKind, key: Type.String() };
export const RenameResultSchema = Type.Object(
  {
    install: InstallViewSchema,
    alias: nullable(Type.String({ description: 'The former name kept as an alias' })),
    definitions: Type.Array(
      Type.Object(
        {
          ...Definition,
          version: Type.Integer({ description: 'The draft the rewrite wrote' }),
          status: Type.Union(
            [Type.Literal('draft'), Type.Literal('published'), Type.Literal('approval_requested')],
            {
              description:
                'published: rewrite publish published it (a draft with errors stays a draft); approval_requested: the tenant requires approval for definitions, and the request opened (approvalId)',
            },
          ),
          approvalId: Type.Optional(
            Type.String({ format: 'uuid', description: 'With approval_requested: the request opened' }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'The calling definitions the rewrite wrote a new draft of' },
    ),
    skipped: Type.Array(
      Type.Object({ ...Definition, reason: Type.Literal('draft_pending') }, { additionalProperties: false }),
      { description: 'Calling definitions left alone: each already has a draft' },
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });

/** GET …/cache: live cached values (never a value), the deployment's budget and what is used of it. */
export const CacheListingSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { name: Type.String(), expiresAt: dateTime(), updatedAt: dateTime(), sizeBytes: Count },
        { additionalProperties: false },
      ),
    ),
    limits: Type.Object({ entries: Count, totalBytes: Count }, { additionalProperties: false }),
    used: Type.Object({ entries: Count, totalBytes: Count }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

export const CacheClearedSchema = Type.Object(
  { entries: Type.Integer({ minimum: 0, description: 'How many values were cleared' }) },
  { additionalProperties: false },
);

/** Micros and counts: whole numbers JSON and the bigint columns both carry exactly. */
const Amount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

const Budget = Type.Object(
  {
    // enum rather than a union of literals: one issue per wrong value instead of one per literal.
    metric: Type.Enum([...BUDGET_METRICS]),
    period: Type.Enum([...BUDGET_PERIODS]),
    max: Amount,
  },
  { additionalProperties: false },
);

/** The limits record: the PUT body and both answers. */
export const LimitsRecordSchema = Type.Object(
  {
    // One `type: [string, null]` rather than anyOf, like the circuit's nullable integers: a refusal names
    // the field once.
    currency: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      pattern: '^[A-Z]{3}$',
      description: 'ISO 4217 code, or null: no charging',
    }),
    prices: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Amount, {
      description: 'Micros of the currency per call, by action name',
    }),
    budgets: Type.Array(Budget, { maxItems: MAX_BUDGETS_PER_INSTALL }),
  },
  {
    additionalProperties: false,
    title: 'InstallLimits',
    examples: [
      {
        currency: 'EUR',
        prices: { screen: 250_000 },
        budgets: [
          { metric: 'calls', period: 'day', max: 1000 },
          { metric: 'spend', period: 'month', max: 50_000_000 },
        ],
      },
    ],
  },
);
