// The delivery body (docs/outbound-webhooks.md): { id, type, occurredAt, tenantId, resource { type, id }, data },
// built from the audit row the event came from, so every attempt sends the same bytes. Pure.

export interface EventSource {
  eventId: string;
  eventType: string;
  tenantId: string;
  occurredAt: Date;
  resourceType: string;
  resourceId: string;
  data: Record<string, unknown>;
  /** The run the event is about (a run, its decision, its cases), when there is one. */
  workflowRunId: string | null;
}

export interface EventBody {
  id: string;
  type: string;
  occurredAt: string;
  tenantId: string;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

export function eventBody(source: EventSource): EventBody {
  const data =
    source.workflowRunId !== null && source.data.workflowRunId === undefined
      ? { ...source.data, workflowRunId: source.workflowRunId }
      : source.data;
  return {
    id: source.eventId,
    type: source.eventType,
    occurredAt: source.occurredAt.toISOString(),
    tenantId: source.tenantId,
    resource: { type: source.resourceType, id: source.resourceId },
    data,
  };
}
