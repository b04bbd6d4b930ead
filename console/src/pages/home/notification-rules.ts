// What a notification says and where it leads. The API answers a notification as its kind, resource and
// data (docs/notifications.md "Kinds"); the sentence and the link are the console's. Pure.

export interface NotificationLike {
  kind: string;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

/** A data field as text: a string or number as it is, anything else (absent, an object) empty. */
const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';
const seg = (value: unknown) => encodeURIComponent(text(value));

const installPage = (name: unknown) => `/apps/installs/${seg(name)}`;
const changePage = (name: unknown, changeId: unknown) => `${installPage(name)}/changes/${seg(changeId)}`;
const definitionNoun = (kind: unknown) => (kind === 'rule_set' ? 'rule set' : text(kind) || 'definition');

/** The sentence a notification shows. */
export function notificationText({ kind, resource, data: d }: NotificationLike): string {
  switch (kind) {
    case 'approval_requested':
      if (resource.type === 'app_install')
        return `${text(d.requestedBy) || 'Someone'} asked to change install ${text(d.name)}; it waits for approval`;
      if (resource.type === 'app_version')
        return `${text(d.requestedBy) || 'Someone'} asked to publish ${text(d.name)} ${text(d.version)}; it waits for approval`;
      return `${text(d.requestedBy) || 'Someone'} asked to publish ${definitionNoun(d.kind)} ${text(d.key)} version ${text(d.version)}; it waits for approval`;
    case 'approval_decided':
      return `${text(d.decidedBy) || 'Someone'} ${text(d.decision) || 'decided'} ${definitionNoun(d.kind)} ${text(d.key)} version ${text(d.version)}`;
    case 'install_change_pending':
      return d.origin === 'auto_upgrade'
        ? `An upgrade of install ${text(d.name)} to ${text(d.appName)} ${text(d.version)} waits for approval`
        : `Your change to install ${text(d.name)} waits for approval`;
    case 'app_upgraded':
      return `Install ${text(d.name)} moved from ${text(d.appName)} ${text(d.fromVersion)} to ${text(d.toVersion)}${d.automatic === true ? ' (automatic upgrade)' : ''}`;
    case 'app_degraded':
      return `Install ${text(d.install)} stopped calling its vendor after ${text(d.failures)} failures (circuit open)`;
    case 'app_quota_exceeded':
      return `Install ${text(d.install)} reached its ${text(d.period)} limit of ${text(d.max)} ${text(d.metric)}`;
    case 'app_review_decided':
      return `The review of ${text(d.name)} ${text(d.version)}: ${text(d.decision) || 'decided'}`;
    case 'app_blocked':
      return `Install ${text(d.name)} is stopped: ${text(d.appName)} ${text(d.version)} was blocked${d.reason ? ` (${text(d.reason)})` : ''}`;
    case 'webhook_endpoint_failing':
      return `A webhook endpoint is failing: a ${text(d.event)} delivery was given up after five attempts`;
    default:
      return `${kind.replaceAll('_', ' ')} (${resource.type.replaceAll('_', ' ')})`;
  }
}

/** The console page a notification leads to, or null. */
export function notificationHref({ kind, resource, data: d }: NotificationLike): string | null {
  switch (resource.type) {
    case 'app_install':
      if (!text(d.name ?? d.install)) return null;
      if (d.changeId !== undefined && (kind === 'approval_requested' || kind === 'install_change_pending'))
        return changePage(d.name, d.changeId);
      return installPage(d.name ?? d.install);
    case 'app_version':
      return kind === 'approval_requested' ? '/apps/approvals' : text(d.name) ? `/apps/${seg(d.name)}` : null;
    case 'definition_approval':
      return `/approvals/definitions/${encodeURIComponent(resource.id)}`;
    case 'webhook_endpoint':
      return `/webhooks/endpoints/${encodeURIComponent(resource.id)}`;
    default:
      return null;
  }
}
