// The runs pages' pure rules: the list's filters as the URL keeps them and the API takes them, whether a
// run still moves, how long things took, and a run's steps as timeline rows. Pure.

export const RUN_STATUSES = ['running', 'waiting_callback', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What `GET /workflow-runs` takes besides paging. */
export interface RunFilters {
  status?: RunStatus;
  workflow?: string;
  subjectId?: string;
  from?: string;
  to?: string;
}

const isStatus = (value: string): value is RunStatus => (RUN_STATUSES as readonly string[]).includes(value);
const isInstant = (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));

/**
 * The filters a URL asks for, as the API takes them: an unknown status or a time that is no date-time is
 * left out (the form shows "any"), text is trimmed, an empty value is no filter.
 */
export function runFiltersOf(read: (name: string) => string | undefined): RunFilters {
  const filters: RunFilters = {};
  const status = read('status');
  if (status && isStatus(status)) filters.status = status;
  const workflow = read('workflow')?.trim();
  if (workflow) filters.workflow = workflow;
  const subjectId = read('subjectId')?.trim();
  if (subjectId) filters.subjectId = subjectId;
  for (const name of ['from', 'to'] as const) {
    const value = read(name)?.trim();
    if (value && isInstant(value)) filters[name] = new Date(value).toISOString();
  }
  return filters;
}

/** A `datetime-local` input's value (the reader's local time) as an instant for the URL; null when empty or invalid. */
export function instantOfLocal(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return null;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An instant as a `datetime-local` input shows it (the reader's local time, to the minute); '' for none. */
export function localOfInstant(instant: string | undefined): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A run that may still change by itself: its page and lists refresh while one shows. */
export const isInMotion = (status: string) => status === 'running' || status === 'waiting_callback';

/** A status as words: `waiting_callback` → "waiting on a vendor". */
export function statusText(status: string): string {
  return status === 'waiting_callback' ? 'waiting on a vendor' : status.replaceAll('_', ' ');
}

/** A duration as a person reads it: "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1_000);
  const two = (n: number) => String(n).padStart(2, '0');
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${two(seconds % 60)} s`;
  return `${Math.floor(seconds / 3_600)} h ${two(Math.floor(seconds / 60) % 60)} min`;
}

/** Why a run cannot be cancelled, as a sentence; null while it can be (running or waiting). */
export function cancelRefusal(status: string): string | null {
  return isInMotion(status)
    ? null
    : `This run has ended (${statusText(status)}): it can no longer be cancelled.`;
}

export interface StepLike {
  id: string;
  type: string;
  status: string;
  attempts: number;
  startedAt: string | null;
  completedAt: string | null;
}

/** One step of the timeline: when it ran, for how long, and its bar's place in percent of the run's span. */
export interface TimelineRow {
  id: string;
  type: string;
  status: string;
  attempts: number;
  startedAt: string | null;
  completedAt: string | null;
  /** Null for a step that never started; for a step still going, the time until `now`. */
  durationMs: number | null;
  /** Whether the step is still going (its duration counts to now). */
  ongoing: boolean;
  /** The bar's start and width in percent of the span from the first start to the last end (or now). */
  offset: number;
  width: number;
}

/** The narrowest bar drawn (percent), so an instant step still shows. */
export const MIN_BAR = 0.5;

const round = (n: number) => Math.round(n * 100) / 100;

/** The run's steps as timeline rows, in the run's order; `now` ends the steps still going. */
export function timelineRows(steps: readonly StepLike[], now: number): TimelineRow[] {
  const times = steps.map((step) => {
    const start = step.startedAt === null ? null : Date.parse(step.startedAt);
    const end =
      step.completedAt === null
        ? start === null
          ? null
          : Math.max(now, start)
        : Date.parse(step.completedAt);
    return { start, end };
  });
  const starts = times.flatMap((t) => (t.start === null ? [] : [t.start]));
  const ends = times.flatMap((t) => (t.end === null ? [] : [t.end]));
  const first = Math.min(...starts);
  const span = Math.max(Math.max(...ends) - first, 1);
  return steps.map((step, index) => {
    const { start, end } = times[index] as { start: number | null; end: number | null };
    const base = {
      id: step.id,
      type: step.type,
      status: step.status,
      attempts: step.attempts,
      startedAt: step.startedAt,
      completedAt: step.completedAt,
    };
    if (start === null || end === null) {
      return { ...base, durationMs: null, ongoing: false, offset: 0, width: 0 };
    }
    const offset = round(((start - first) / span) * 100);
    const width = round(Math.max(((end - start) / span) * 100, MIN_BAR));
    return {
      ...base,
      durationMs: end - start,
      ongoing: step.completedAt === null,
      offset: Math.min(offset, 100 - MIN_BAR),
      width: Math.min(width, 100 - Math.min(offset, 100 - MIN_BAR)),
    };
  });
}

/** Whether a text the API answered was withheld from this principal (runs:context). */
export const isRedacted = (value: unknown) => value === '[redacted]';

/** A JSON value as text for a <pre>: null/absent as an empty string. */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
