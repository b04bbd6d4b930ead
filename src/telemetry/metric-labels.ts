// Label values of service.app.invocation.duration: names, never keys or ids. The specification lists the
// labels tenant, app, install, action and status, and also says keys and ids are never labels; the
// platform keeps the labels and fills tenant and install with their names (a tenant's unique name, the
// install's name within its tenant), which people chose and read, and which stay few. Pure.
import type { InvocationStatus } from './catalogue.ts';

export interface InvocationLabels {
  /** The tenant's name; null when it could not be read (the label then says `unknown`). */
  tenant: string | null;
  app: string;
  /** The install's name (never its id). */
  install: string;
  action: string;
  status: InvocationStatus;
}

/** What a label holds in place of a value that is missing or looks like an id. */
export const UNKNOWN_LABEL = 'unknown';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a label value looks like an id (a UUID): such a value is never written. */
export const looksLikeId = (value: string): boolean => UUID.test(value);

/** A name as a label value: `unknown` for none, and for a value that looks like an id. */
export function nameLabel(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '' || looksLikeId(value)) return UNKNOWN_LABEL;
  return value;
}

export function invocationLabels(labels: InvocationLabels): Record<string, string> {
  return {
    tenant: nameLabel(labels.tenant),
    app: nameLabel(labels.app),
    install: nameLabel(labels.install),
    action: nameLabel(labels.action),
    status: labels.status,
  };
}
