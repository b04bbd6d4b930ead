// The activity feed's rules (docs/tenants-and-audit.md "Activity"): which audit actions it shows to whom,
// what of their payload it keeps, and the sentence, console link and tone of each item. Pure: an audit
// event in, an activity item out.
import type { DefinitionKind } from './definition-kind.ts';
import type { Actor, AuditEvent } from './trail.ts';

/** Shown to every authenticated caller of the tenant. */
export const CASE_ACTIONS = ['case.decided', 'case.sla.breached'] as const;

/**
 * How each definition kind reads in a sentence and where the console shows it. A Record over every kind:
 * a new kind does not compile until it is named here, and its `<kind>.published` joins the feed.
 */
export const DEFINITION_KINDS: Record<DefinitionKind, { noun: string; path: string }> = {
  workflow: { noun: 'workflow', path: '/workflows' },
  rule_set: { noun: 'rule set', path: '/rule-sets' },
};

const isDefinitionKind = (kind: unknown): kind is DefinitionKind =>
  typeof kind === 'string' && Object.hasOwn(DEFINITION_KINDS, kind);

export const APPROVAL_ACTIONS = [
  'definition.approval.requested',
  'definition.approval.approved',
  'definition.approval.rejected',
  'definition.approval.withdrawn',
] as const;

/** `<kind>.published` for each definition kind, then the definition approvals: shown with definitions:read. */
export const DEFINITION_ACTIONS: readonly string[] = [
  ...Object.keys(DEFINITION_KINDS).map((kind) => `${kind}.published`),
  ...APPROVAL_ACTIONS,
];

/** The actions the feed reads for a caller, by whether it holds definitions:read. */
export const activityActions = (definitionsRead: boolean): string[] =>
  definitionsRead ? [...CASE_ACTIONS, ...DEFINITION_ACTIONS] : [...CASE_ACTIONS];

/**
 * The payload fields an item keeps: the outcome, the keys (a definition's kind and key) and the version.
 * Everything else of the audit record stays in the full trail (GET /audit-events, audit:read).
 */
export const KEPT_FIELDS = ['outcome', 'kind', 'key', 'version'] as const;
export type KeptField = (typeof KEPT_FIELDS)[number];
export type ActivityData = Partial<Record<KeptField, string | number | boolean>>;

/**
 * The payload trimmed to KEPT_FIELDS, each only when it holds a plain value (text, a finite number or a
 * boolean): an object or array under a kept name is dropped too, so nothing nested comes through.
 */
export function trimPayload(data: Readonly<Record<string, unknown>>): ActivityData {
  const kept: ActivityData = {};
  for (const field of KEPT_FIELDS) {
    if (!Object.hasOwn(data, field)) continue;
    const value = data[field];
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      kept[field] = value;
    }
  }
  return kept;
}

export type Tone = 'neutral' | 'alert';

export interface ActivityItem {
  id: string;
  occurredAt: string;
  action: string;
  actor: Actor;
  text: string;
  href: string | null;
  tone: Tone;
  data: ActivityData;
}

/** An SLA breach and a rejected approval call for someone's attention; everything else is news. */
export const toneOf = (action: string): Tone =>
  action === 'case.sla.breached' || action === 'definition.approval.rejected' ? 'alert' : 'neutral';

/**
 * Who did it, for a sentence: the name the audit record carries (the token's name claim when it was
 * written), else by kind of actor: the operator, the platform, an applicant, or the actor's id.
 */
export function actorLabel(actor: Actor): string {
  const name = actor.name?.trim();
  if (name) return name;
  if (actor.type === 'operator') return 'The operator';
  if (actor.type === 'system') return 'The platform';
  if (actor.type === 'applicant') return 'An applicant';
  return actor.id;
}

/** The definition's kind: the action's own for `<kind>.published`, else the payload's. */
function kindOf(action: string, data: ActivityData): DefinitionKind | null {
  const prefix = action.endsWith('.published') ? action.slice(0, -'.published'.length) : null;
  if (isDefinitionKind(prefix)) return prefix;
  return isDefinitionKind(data.kind) ? data.kind : null;
}

/** `workflow onboarding version 3`, as much of it as the payload names. */
function definitionNamed(kind: DefinitionKind | null, data: ActivityData): string {
  const noun = kind ? DEFINITION_KINDS[kind].noun : 'definition';
  const named = data.key !== undefined ? `${noun} ${data.key}` : `a ${noun}`;
  return data.version !== undefined ? `${named} version ${data.version}` : named;
}

const caseNamed = (data: ActivityData) => (data.key !== undefined ? `case ${data.key}` : 'a case');

/** The sentence of an item, naming the actor first. */
export function activityText(event: Pick<AuditEvent, 'action' | 'actor'>, data: ActivityData): string {
  const who = actorLabel(event.actor);
  const definition = () => definitionNamed(kindOf(event.action, data), data);
  switch (event.action) {
    case 'case.decided':
      return `${who} decided ${caseNamed(data)}${data.outcome !== undefined ? `: ${data.outcome}` : ''}`;
    case 'case.sla.breached':
      return `${who} reported ${caseNamed(data)} past its due date`;
    case 'definition.approval.requested':
      return `${who} asked for approval to publish ${definition()}`;
    case 'definition.approval.approved':
      return `${who} approved publishing ${definition()}`;
    case 'definition.approval.rejected':
      return `${who} rejected publishing ${definition()}`;
    case 'definition.approval.withdrawn':
      return `${who} withdrew the request to publish ${definition()}`;
  }
  if (event.action.endsWith('.published')) return `${who} published ${definition()}`;
  return `${who}: ${event.action}`;
}

const segment = (value: string | number | boolean) => encodeURIComponent(String(value));

/**
 * The console page of an item, a path relative to the console's root, or null when the record does not
 * name one: `/cases/<id>` for a case (its audit resource), `/workflows/<key>/versions/<n>` and
 * `/rule-sets/<key>/versions/<n>` for publishes and approvals (`/workflows/<key>` without a version).
 */
export function activityHref(
  event: Pick<AuditEvent, 'action' | 'resource'>,
  data: ActivityData,
): string | null {
  if (event.action.startsWith('case.')) {
    return event.resource.type === 'case' ? `/cases/${segment(event.resource.id)}` : null;
  }
  const kind = kindOf(event.action, data);
  if (!kind || data.key === undefined) return null;
  const page = `${DEFINITION_KINDS[kind].path}/${segment(data.key)}`;
  return data.version !== undefined ? `${page}/versions/${segment(data.version)}` : page;
}

/** The activity item of an audit event: its payload trimmed first, so text and link read only what is kept. */
export function activityItem(event: AuditEvent): ActivityItem {
  const data = trimPayload(event.data);
  return {
    id: event.id,
    occurredAt: event.occurredAt,
    action: event.action,
    actor: event.actor,
    text: activityText(event, data),
    href: activityHref(event, data),
    tone: toneOf(event.action),
    data,
  };
}
