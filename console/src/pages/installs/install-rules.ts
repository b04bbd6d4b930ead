// The installs pages' pure rules: an install's health as the table shows it (joined from the install list,
// GET /apps/health and GET /apps/metering), the hosts a save would add, the runs a refusal names, and
// how figures read. Pure; table-tested in test/console/installs-rules.test.ts.
import type { paths } from '../../api/schema.ts';
import { type Json, valueAt } from './config-form.ts';

type Ok<P extends keyof paths, M extends 'get'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type InstallView = Ok<'/app-installs/{install}', 'get'>;
export type Health = Ok<'/apps/health', 'get'>;
export type MonthMetering = Ok<'/apps/metering', 'get'>;
export type Budget = MonthMetering['installs'][number]['budgets'][number];
type VersionSummary = InstallView['version'];

/** 1 − failures/calls as a percentage, never rounded up to 100% while anything failed; '—' without calls. */
export function successRate(calls: number, failures: number): string {
  if (calls <= 0) return '—';
  const percent = Math.floor((1 - failures / calls) * 1000) / 10;
  return Number.isInteger(percent) ? `${percent}%` : `${percent.toFixed(1)}%`;
}

export function latencyText(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const METRIC_WORDS: Record<Budget['metric'], string> = {
  calls: 'calls',
  http_requests: 'HTTP requests',
  spend: 'spent',
};

/** A budget's use: "12 of 1,000 calls today", "€0.25 of €50.00 spent this month" (spend in micros). */
export function budgetText(budget: Budget, currency: string | null | undefined): string {
  const when = budget.period === 'day' ? 'today' : 'this month';
  if (budget.metric === 'spend') {
    const money = (micros: number) => moneyText(micros, currency ?? null);
    return `${money(budget.used)} of ${money(budget.max)} spent ${when}${budget.reached ? ' (reached)' : ''}`;
  }
  const count = (n: number) => n.toLocaleString('en');
  return `${count(budget.used)} of ${count(budget.max)} ${METRIC_WORDS[budget.metric]} ${when}${budget.reached ? ' (reached)' : ''}`;
}

/** Micros of a currency as money text; without a currency, the micros themselves. */
export function moneyText(micros: number, currency: string | null): string {
  if (!currency) return `${micros.toLocaleString('en')} micros`;
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(micros / 1_000_000);
}

export interface InstallRow {
  name: string;
  appName: string;
  version: string;
  enabled: boolean;
  calls: number;
  failures: number;
  p95Ms: number | null;
  lastCallAt: string | null;
  circuit: 'closed' | 'open' | 'half_open';
  retryAt: string | null;
  blocked: string | null;
  budgets: { text: string; reached: boolean }[];
  pendingChange: boolean;
  missingSecrets: string[];
}

/**
 * The installs table: each install with its window's health (absent from the report: no calls), its
 * circuit (the report lists only open and half-open ones), a block and its budgets' use this period.
 */
export function installRows(
  installs: readonly Pick<
    InstallView,
    'id' | 'name' | 'appName' | 'version' | 'enabled' | 'pendingChange' | 'missingSecrets'
  >[],
  health: Pick<Health, 'installs' | 'circuits' | 'blocked'> | undefined,
  metering: Pick<MonthMetering, 'installs'> | undefined,
): InstallRow[] {
  return installs.map((install) => {
    const calls = health?.installs.find((h) => h.installId === install.id);
    const circuit = health?.circuits.find((c) => c.installId === install.id);
    const blocked = health?.blocked.find((b) => b.installId === install.id);
    const use = metering?.installs.find((m) => m.installId === install.id);
    return {
      name: install.name,
      appName: install.appName,
      version: install.version.version,
      enabled: install.enabled,
      calls: calls?.calls ?? 0,
      failures: calls?.failures ?? 0,
      p95Ms: calls?.p95Ms ?? null,
      lastCallAt: calls?.lastCallAt ?? null,
      circuit: circuit?.state ?? 'closed',
      retryAt: circuit?.retryAt ?? null,
      blocked: blocked ? blocked.reason : null,
      budgets: (use?.budgets ?? []).map((b) => ({ text: budgetText(b, use?.currency), reached: b.reached })),
      pendingChange: install.pendingChange !== null,
      missingSecrets: install.missingSecrets,
    };
  });
}

export const CIRCUIT_TEXT: Record<InstallRow['circuit'], string> = {
  closed: 'closed',
  open: 'open: calls refused',
  half_open: 'half-open: trying again',
};

/** A URL's host as the platform approves it (`vendor.example`, `127.0.0.1:4010`); null when not a URL. */
function hostOfUrl(value: Json | undefined): string | null {
  if (typeof value !== 'string') return null;
  try {
    const host = new URL(value).host;
    return host === '' ? null : host.toLowerCase();
  } catch {
    return null;
  }
}

/** The hosts a config gives an install: the manifest's, then those of the URLs at hostsFromConfig. */
export function hostsOf(version: Pick<VersionSummary, 'hosts' | 'hostsFromConfig'>, config: Json): string[] {
  const hosts = new Set(version.hosts.map((h) => h.toLowerCase()));
  for (const pointer of version.hostsFromConfig) {
    const host = hostOfUrl(valueAt(config, pointer));
    if (host) hosts.add(host);
  }
  return [...hosts];
}

/** The hosts a save adds to those the install has: each must be approved (`approveHosts`). */
export function hostsAdded(
  version: Pick<VersionSummary, 'hosts' | 'hostsFromConfig'>,
  config: Json,
  current: readonly string[],
): string[] {
  const have = new Set(current.map((h) => h.toLowerCase()));
  return hostsOf(version, config).filter((host) => !have.has(host));
}

/** The runs a 409 install_in_use (or a rename's refusal) names in `details.runs`, by id. */
export function runsNamed(details: Record<string, unknown> | undefined): string[] {
  const runs = details?.runs;
  if (!Array.isArray(runs)) return [];
  return runs.flatMap((run) =>
    typeof run === 'object' && run !== null && typeof (run as { id?: unknown }).id === 'string'
      ? [(run as { id: string }).id]
      : [],
  );
}

/** The hosts a 409 hosts_not_approved names as not approved. */
export function hostsNotApproved(details: Record<string, unknown> | undefined): string[] {
  const hosts = details?.notApproved;
  return Array.isArray(hosts) ? hosts.filter((h): h is string => typeof h === 'string') : [];
}

/** The issues of a 400 validation_error (`details.issues [{ path, message }]`). */
export function issuesOf(details: Record<string, unknown> | undefined): { path: string; message: string }[] {
  const issues = details?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((issue) =>
    typeof issue?.path === 'string' && typeof issue?.message === 'string'
      ? [{ path: issue.path as string, message: issue.message as string }]
      : [],
  );
}

/** The console path of an install, and of one of its changes. */
export const installPath = (name: string) => `/apps/installs/${encodeURIComponent(name)}`;
export const changePath = (name: string, changeId: string) =>
  `${installPath(name)}/changes/${encodeURIComponent(changeId)}`;
