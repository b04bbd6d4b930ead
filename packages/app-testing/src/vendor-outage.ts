// The vendor double's outage switch. While an outage is on, it answers every vendor request instead of
// the routes, so a test (or curl against `app vendor-double`) can show what a vendor outage does to an
// install: the platform's circuit counts only outages (a retryable 429/5xx answer, a timeout), never a
// final error. The control route under CONTROL_PREFIX switches it over HTTP.
import { type IncomingRequest, jsonResponse, type OutgoingResponse } from './local-server.ts';

/**
 * - `unavailable`: every request answers a 5xx, an error the app retries and the circuit counts;
 * - `timeout`: every request is held unanswered, so the app's request times out (the circuit counts it);
 * - `final`: every request answers a 4xx, an error the app treats as final (the circuit does not count it).
 */
export type OutageMode = 'unavailable' | 'timeout' | 'final';

export type VendorOutage =
  | {
      mode: 'unavailable';
      /** 500 to 599; default 503. */
      status?: number;
      /** 0 to 86400, sent as the Retry-After header; absent: no header. */
      retryAfterSeconds?: number;
    }
  | {
      mode: 'timeout';
      /** 1 to 3600000: answer 504 after this long; absent: hold until recover() or close(). */
      holdMs?: number;
    }
  | {
      mode: 'final';
      /** 400 to 499; default 400. */
      status?: number;
    };

/** A vendor double's control routes start with it: no vendor API names a path like it. */
export const CONTROL_PREFIX = '/__double/';
export const OUTAGE_ROUTE = `${CONTROL_PREFIX}outage`;

/** A setting the switch refuses; the control route answers it as 400. */
export class OutageSettingError extends RangeError {}

interface Range {
  min: number;
  max: number;
}

// The fields each mode takes: a field another mode takes is refused rather than ignored, so a typo or
// a wrong mode shows at once instead of as an outage unlike the one asked for.
const FIELDS: Record<OutageMode, Record<string, Range>> = {
  unavailable: { status: { min: 500, max: 599 }, retryAfterSeconds: { min: 0, max: 86_400 } },
  timeout: { holdMs: { min: 1, max: 3_600_000 } },
  final: { status: { min: 400, max: 499 } },
};
const DEFAULT_STATUS = { unavailable: 503, final: 400 } as const;
const MODES = Object.keys(FIELDS) as OutageMode[];

/** Checks a setting, from code or a control request's body, and fills in the default status. */
function checkOutage(setting: unknown): VendorOutage {
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting))
    throw new OutageSettingError(`an outage is { "mode": ${MODES.join(' | ')}, … }`);
  const { mode, ...given } = setting as { mode: OutageMode } & Record<string, unknown>;
  if (!MODES.includes(mode))
    throw new OutageSettingError(`mode must be one of ${MODES.join(', ')}, not ${JSON.stringify(mode)}`);
  const fields = FIELDS[mode];
  const checked: Record<string, number> = mode === 'timeout' ? {} : { status: DEFAULT_STATUS[mode] };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const range = fields[name];
    if (!range) {
      const takes = Object.keys(fields).join(', ');
      throw new OutageSettingError(`the ${mode} outage takes ${takes} besides mode, not ${name}`);
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max)
      throw new OutageSettingError(
        `${name} must be an integer from ${range.min} to ${range.max} for the ${mode} outage, not ${JSON.stringify(value)}`,
      );
    checked[name] = value;
  }
  return { mode, ...checked } as VendorOutage;
}

const MESSAGES: Record<OutageMode, string> = {
  unavailable: 'the vendor double is unavailable (an unavailable outage)',
  timeout: 'the vendor double held this request unanswered (a timeout outage)',
  final: 'the vendor double refuses every request (a final outage)',
};

function outageAnswer(mode: OutageMode, status: number, headers?: Record<string, string>) {
  return jsonResponse(status, { error: MESSAGES[mode], outage: mode }, headers);
}

/** The outage a vendor double is in, and the requests a timeout outage holds. */
export class OutageSwitch {
  #current: VendorOutage | null = null;
  /** Each held request's release: answers it 504 and forgets its timer. */
  readonly #held = new Set<() => void>();
  readonly #onChange?: (outage: VendorOutage | null) => void;

  constructor(onChange?: (outage: VendorOutage | null) => void) {
    this.#onChange = onChange;
  }

  get current(): VendorOutage | null {
    return this.#current;
  }

  get held(): number {
    return this.#held.size;
  }

  /** Throws an OutageSettingError for a setting checkOutage refuses. */
  set(setting: unknown): VendorOutage {
    const next = checkOutage(setting);
    // Held requests belong to the timeout outage: another mode answers them as the timeout would.
    if (next.mode !== 'timeout') this.#releaseHeld();
    this.#current = next;
    this.#onChange?.(next);
    return next;
  }

  recover(): void {
    if (this.#current === null) return;
    this.#current = null;
    this.#releaseHeld();
    this.#onChange?.(null);
  }

  /** The current outage's answer to a vendor request; a timeout's settles once the request is released. */
  answer(outage: VendorOutage, signal: AbortSignal): OutgoingResponse | Promise<OutgoingResponse> {
    if (outage.mode === 'timeout') return this.#hold(signal, outage.holdMs);
    const retryAfter = outage.mode === 'unavailable' ? outage.retryAfterSeconds : undefined;
    return outageAnswer(
      outage.mode,
      outage.status ?? DEFAULT_STATUS[outage.mode],
      retryAfter === undefined ? undefined : { 'retry-after': String(retryAfter) },
    );
  }

  #hold(signal: AbortSignal, holdMs: number | undefined): Promise<OutgoingResponse> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const release = () => {
        this.#held.delete(release);
        clearTimeout(timer);
        signal.removeEventListener('abort', release);
        resolve(outageAnswer('timeout', 504));
      };
      // A client that gives up (or close() ending the connection) frees its request: nothing stays held.
      if (signal.aborted) return release();
      signal.addEventListener('abort', release, { once: true });
      this.#held.add(release);
      if (holdMs !== undefined) timer = setTimeout(release, holdMs);
    });
  }

  #releaseHeld(): void {
    for (const release of [...this.#held]) release();
  }
}

/**
 * The answer to a control request (a path under CONTROL_PREFIX), or null for a vendor request. Control
 * requests are answered in any outage and never recorded, so curl can always switch the double back.
 * `others` (the double's own control routes, already tried) are named in the answer to an unknown one.
 */
export function controlAnswer(
  incoming: IncomingRequest,
  outages: OutageSwitch,
  others: readonly { method?: string; path: string | RegExp }[] = [],
): OutgoingResponse | null {
  if (!incoming.path.startsWith(CONTROL_PREFIX)) return null;
  if (incoming.path !== OUTAGE_ROUTE) {
    const more = others.map((route) => `, ${route.method ?? 'any method'} ${route.path}`).join('');
    return jsonResponse(404, {
      error: `the vendor double has no control route ${incoming.method} ${incoming.path}; it has GET, POST and DELETE ${OUTAGE_ROUTE}${more}`,
    });
  }
  if (incoming.method === 'DELETE') outages.recover();
  else if (incoming.method === 'POST') {
    try {
      outages.set(bodyJson(incoming.body));
    } catch (error) {
      if (error instanceof OutageSettingError) return jsonResponse(400, { error: error.message });
      throw error;
    }
  } else if (incoming.method !== 'GET')
    return jsonResponse(
      405,
      { error: `${OUTAGE_ROUTE} takes GET, POST and DELETE, not ${incoming.method}` },
      { allow: 'GET, POST, DELETE' },
    );
  return jsonResponse(200, { outage: outages.current, held: outages.held });
}

function bodyJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new OutageSettingError(
      `the body must be JSON like { "mode": "unavailable" }: ${error instanceof Error ? error.message : error}`,
    );
  }
}
