// The webhooks pages' rules: the deliveries filter as the URL keeps it and as the API takes it, the
// datetime-local field's text and an instant, an endpoint form's body, a refusal's issues beside their
// fields, and what a ping's answer says. Pure.
import { ApiFailure } from '../../api/errors.ts';
import type { operations } from '../../api/schema.ts';

export type EndpointBody = NonNullable<
  operations['createWebhookEndpoint']['requestBody']
>['content']['application/json'];
export type EventType = EndpointBody['events'][number];
type DeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
export type DeliveryStatus = NonNullable<DeliveryQuery['status']>[number];

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'failed', 'exhausted', 'delivered'];

/** The deliveries list's filters, as the URL keeps them (`status` repeated, as the API takes it). */
export interface DeliveryFilter {
  endpointId?: string;
  status: DeliveryStatus[];
  event?: string;
  /** Instants (ISO 8601): `from` inclusive, `to` exclusive, on the delivery's creation. */
  from?: string;
  to?: string;
}

const FILTER_NAMES = ['endpointId', 'status', 'event', 'from', 'to'] as const;

const isStatus = (value: string): value is DeliveryStatus =>
  (DELIVERY_STATUSES as readonly string[]).includes(value);

/** The filters the URL holds; an unknown status is left out, an empty value is none. */
export function deliveryFilterOf(params: URLSearchParams): DeliveryFilter {
  const one = (name: string) => params.get(name)?.trim() || undefined;
  const status = [...new Set(params.getAll('status'))].filter(isStatus);
  const filter: DeliveryFilter = { status };
  for (const name of ['endpointId', 'event', 'from', 'to'] as const) {
    const value = one(name);
    if (value !== undefined) filter[name] = value;
  }
  return filter;
}

/** The URL's parameters with `filter` in place of its filters, back to the first page (the rest kept). */
export function withDeliveryFilter(
  params: URLSearchParams,
  filter: DeliveryFilter,
  offsetName = 'offset',
): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const name of [...FILTER_NAMES, offsetName]) next.delete(name);
  for (const status of filter.status) next.append('status', status);
  for (const name of ['endpointId', 'event', 'from', 'to'] as const) {
    const value = filter[name];
    if (value) next.set(name, value);
  }
  return next;
}

/** The query `GET /webhook-deliveries` takes for `filter` and a page. */
export function deliveryQueryOf(
  filter: DeliveryFilter,
  page: { limit: number; offset: number },
): DeliveryQuery {
  return {
    limit: page.limit,
    offset: page.offset,
    ...(filter.status.length > 0 ? { status: filter.status } : {}),
    ...(filter.endpointId ? { endpointId: filter.endpointId } : {}),
    ...(filter.event ? { event: filter.event as DeliveryQuery['event'] } : {}),
    ...(filter.from ? { from: filter.from } : {}),
    ...(filter.to ? { to: filter.to } : {}),
  };
}

/** Whether a list holds deliveries the sender will still try (the page refreshes itself while so). */
export const deliveriesInMotion = (items: readonly { status: string }[] | undefined): boolean =>
  (items ?? []).some((d) => d.status === 'pending' || d.status === 'failed');

const two = (n: number) => String(n).padStart(2, '0');

/** An instant as a datetime-local field shows it (the reader's time zone, to the minute); '' for none. */
export function localInputOf(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A datetime-local field's text (the reader's time zone) as an instant; undefined when empty or unreadable. */
export function instantOfLocalInput(text: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** What an endpoint form holds, as a person typed it. */
export interface EndpointForm {
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
}

/** The body POST and PUT take: the URL trimmed, an empty description none, events in catalogue order. */
export function endpointBodyOf(form: EndpointForm, catalogue: readonly string[]): EndpointBody {
  const description = form.description.trim();
  const chosen = new Set(form.events);
  const ordered = [
    ...catalogue.filter((t) => chosen.has(t)),
    ...form.events.filter((t) => !catalogue.includes(t)),
  ];
  return {
    url: form.url.trim(),
    description: description === '' ? null : description,
    events: ordered as EventType[],
    enabled: form.enabled,
  };
}

/** A refusal's issues by the form field they are about; `other` holds what no field shows. */
export interface FieldErrors {
  url?: string;
  description?: string;
  events?: string;
  other: string[];
}

const FIELDS = ['url', 'description', 'events'] as const;

/** `validation_error`'s issues (`{ path: '/url', message }`, `/events/1`) beside the fields they name. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  const errors: FieldErrors = { other: [] };
  if (!(error instanceof ApiFailure) || error.code !== 'validation_error') return errors;
  const issues = Array.isArray(error.details?.issues) ? error.details.issues : [];
  for (const issue of issues as { path?: unknown; message?: unknown }[]) {
    const path = typeof issue.path === 'string' ? issue.path : '';
    const message = typeof issue.message === 'string' ? issue.message : 'is not valid';
    const field = FIELDS.find((name) => path === `/${name}` || path.startsWith(`/${name}/`));
    if (field && errors[field] === undefined) errors[field] = message;
    else if (!field) errors.other.push(path && path !== '/' ? `${path}: ${message}` : message);
  }
  return errors;
}

/** A field's issue as the sentence shown beside it: "The URL must use https." */
export function fieldSentence(label: string, message: string): string {
  const text = `${label} ${message.trim()}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** What a test ping's answer says, in a sentence. */
export function pingSummary(result: {
  delivered: boolean;
  responseCode: number | null;
  latencyMs: number;
  error?: string | null;
}): string {
  const answer =
    result.responseCode === null ? 'no answer came' : `the endpoint answered ${result.responseCode}`;
  if (result.delivered) return `Delivered: ${answer} in ${result.latencyMs} ms.`;
  return `Not delivered: ${result.error ?? answer} (after ${result.latencyMs} ms).`;
}

/** An event's sample body as the catalogue shows it. */
export const sampleText = (sample: unknown): string => JSON.stringify(sample, null, 2);
