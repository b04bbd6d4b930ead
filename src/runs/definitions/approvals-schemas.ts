// Approvals of definitions as schemas (docs/runs.md "Approvals of definitions"): the request as answered,
// its list and the decisions' bodies. The request is registered once on the server (src/api/index.ts) and
// referred to by id, so the description names it once.
import { type Static, type TSchema, Type } from 'typebox';
import { pageOf, pageQuery } from '../../http/paging.ts';
import { dateTime, nullable } from '../../http/responses.ts';
import type { ApprovalView } from './approvals-rules.ts';
import { DefinitionKey } from './schemas.ts';

const strict = { additionalProperties: false } as const;
// Enums, not unions of literals: a value outside them is one issue, not one per member.
const Kind = Type.Enum(['workflow', 'rule_set']);
const Status = (options: { default?: string; description?: string } = {}) =>
  Type.Enum(['open', 'approved', 'rejected', 'withdrawn'], options);

export const ApprovalSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: Kind,
    key: DefinitionKey,
    version: Type.Integer({
      minimum: 1,
      description: 'The pinned version: the draft when requested, which approving publishes',
    }),
    status: Status(),
    origin: Type.Enum(['publish', 'rename'], {
      description: 'publish: a publish held for approval; rename: a rename’s rewrite publish',
    }),
    fourEyes: Type.Boolean({
      description: 'The requester may neither approve nor reject it (the setting when it was requested)',
    }),
    requestedBy: Type.String({ description: 'The requester’s token subject' }),
    requestedByName: nullable(Type.String()),
    requestedAt: dateTime(),
    decidedBy: nullable(Type.String({ description: 'Who approved, rejected or withdrew it' })),
    decidedAt: nullable(dateTime()),
    comment: nullable(Type.String({ description: 'The decider’s comment' })),
  },
  { ...strict, $id: 'DefinitionApproval', title: 'DefinitionApproval' },
);

/** The request by reference (the registered DefinitionApproval). */
export const Approval = Type.Unsafe<ApprovalView>(Type.Ref('DefinitionApproval'));
export const ApprovalPage = pageOf(Approval);

/** The schemas the approval routes refer to by id, registered once on the server. */
export const approvalSchemas: TSchema[] = [ApprovalSchema];

export const ApprovalParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const ApprovalsQuery = Type.Object(
  {
    status: Type.Optional(
      Status({
        default: 'open',
        description: 'open (default): oldest first; a decision: newest decided first',
      }),
    ),
    kind: Type.Optional(Kind),
    key: Type.Optional(DefinitionKey),
    ...pageQuery(),
  },
  strict,
);
export type ApprovalsQueryValue = Static<typeof ApprovalsQuery>;

export const DecisionBody = Type.Object(
  { comment: Type.Optional(Type.String({ maxLength: 2000, description: 'Kept with the decision' })) },
  { ...strict, examples: [{ comment: 'Checked the new screening threshold with compliance' }] },
);
