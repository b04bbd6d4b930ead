// The outbound webhook events (docs/outbound-webhooks.md): which audit action raises which event, about which
// resource. Pure data; the trail reader (fan-out-store.ts) and GET /webhook-events read it.

export interface EventType {
  type: string;
  /** The audit actions that raise it. */
  actions: readonly string[];
  resourceType: string;
  description: string;
}

export const EVENT_TYPES: readonly EventType[] = [
  {
    type: 'decision.created',
    actions: ['decision.emitted'],
    resourceType: 'decision',
    description: 'A run’s decide step emitted a decision.',
  },
  {
    type: 'case.created',
    actions: ['case.created'],
    resourceType: 'case',
    description: 'A case was opened.',
  },
  {
    type: 'case.assigned',
    actions: ['case.assigned'],
    resourceType: 'case',
    description: 'A case was assigned.',
  },
  {
    type: 'case.decided',
    actions: ['case.decided'],
    resourceType: 'case',
    description: 'A case was decided.',
  },
  { type: 'case.closed', actions: ['case.closed'], resourceType: 'case', description: 'A case was closed.' },
  {
    type: 'case.sla.breached',
    actions: ['case.sla.breached'],
    resourceType: 'case',
    description: 'An open case passed its due date.',
  },
  {
    type: 'run.completed',
    actions: ['workflow.run.completed'],
    resourceType: 'workflow_run',
    description: 'A workflow run completed.',
  },
  {
    type: 'run.failed',
    actions: ['workflow.run.failed'],
    resourceType: 'workflow_run',
    description: 'A workflow run failed; data carries the step and the error.',
  },
  {
    type: 'approval.requested',
    actions: ['definition.approval.requested'],
    resourceType: 'definition_approval',
    description: 'Publishing a definition asked for approval.',
  },
  {
    type: 'approval.decided',
    actions: [
      'definition.approval.approved',
      'definition.approval.rejected',
      'definition.approval.withdrawn',
    ],
    resourceType: 'definition_approval',
    description: 'A definition approval was approved, rejected or withdrawn.',
  },
  {
    type: 'app.circuit.opened',
    actions: ['app.circuit.opened'],
    resourceType: 'app_install',
    description: 'An install’s circuit opened after outages in a row.',
  },
  {
    type: 'app.install.change.requested',
    actions: ['app.install.change.requested'],
    resourceType: 'app_install',
    description: 'An install change waits for approval.',
  },
  {
    type: 'app.install.upgraded',
    actions: ['app.install.upgraded'],
    resourceType: 'app_install',
    description: 'An install moved to another version.',
  },
  {
    type: 'app.module.blocked',
    actions: ['app.module.blocked'],
    resourceType: 'app_install',
    description: 'A module an install runs was blocked (one event per install).',
  },
  {
    type: 'app.quota.exceeded',
    actions: ['app.quota.exceeded'],
    resourceType: 'app_install',
    description: 'A quota was reached (once per limit and period).',
  },
  {
    type: 'app.review.decided',
    actions: ['app.review.decided'],
    resourceType: 'app_version',
    description: 'The operator decided a review of a version.',
  },
  {
    type: 'submission.link_requested',
    actions: ['collection.submission.link_requested'],
    resourceType: 'collection_submission',
    description: 'An applicant whose link expired asked for a new one.',
  },
];

/** The test ping's type (POST /webhook-endpoints/:id/test); never raised by the trail. */
export const PING = 'ping';

export const EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.map((e) => e.type);

/** Audit action → event type, for the trail reader. */
export const EVENT_OF_ACTION: ReadonlyMap<string, EventType> = new Map(
  EVENT_TYPES.flatMap((e) => e.actions.map((action) => [action, e] as const)),
);
