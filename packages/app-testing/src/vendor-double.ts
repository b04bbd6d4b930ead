// A vendor double: an HTTP server on 127.0.0.1 answering declared routes and recording every request,
// for an app under test to reach through the real http_request host function. An outage switched on
// (vendor-outage.ts) answers instead of the routes.
import {
  type IncomingRequest,
  jsonResponse,
  type OutgoingResponse,
  startLocalServer,
} from './local-server.ts';
import {
  CONTROL_PREFIX,
  controlAnswer,
  type OutageMode,
  OutageSwitch,
  type VendorOutage,
} from './vendor-outage.ts';

export interface VendorRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The body as UTF-8 text ('' when there is none). */
  body: string;
  bodyBytes: Uint8Array;
  /** Values of the route's :name segments. */
  params: Record<string, string>;
  /** Whether a route answered it (false: the double answered 404, or an outage answered). */
  matched: boolean;
  /** The outage that answered it instead of the routes; null: the routes did. */
  outage: OutageMode | null;
}

export interface VendorAnswer {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as it is (instead of json). */
  body?: string | Uint8Array;
}

export interface VendorRoute extends VendorAnswer {
  /** Any letter case; absent: every method. */
  method?: string;
  /** An exact path (`/v1/things`), with `:name` segments matching one segment each (`/things/:id`), or a RegExp. */
  path: string | RegExp;
  /** Answers instead of status/headers/json/body; may be async. */
  respond?: (request: VendorRequest) => VendorAnswer | Promise<VendorAnswer>;
}

export interface VendorDouble {
  /** http://127.0.0.1:<port> */
  url: string;
  /** 127.0.0.1:<port>: approve it in the loader's hosts (or let the app's config name `url`). */
  host: string;
  /** Every request received, oldest first. */
  readonly requests: VendorRequest[];
  /** Adds routes; a later route never shadows an earlier one that matches. */
  route(...routes: VendorRoute[]): void;
  /** Forgets the recorded requests. */
  reset(): void;
  /** The outage answering every request instead of the routes; null: the routes answer. */
  readonly outageMode: OutageMode | null;
  /** Requests a timeout outage holds unanswered now. */
  readonly held: number;
  /**
   * From now on the outage answers every request (still recorded, with `outage` set) and the routes are
   * not consulted. Throws a RangeError for a setting out of range or a field the mode does not take.
   */
  outage(outage: OutageMode | VendorOutage): void;
  /** Ends the outage: the routes answer again at once; requests a timeout outage held answer 504. */
  recover(): void;
  /** Also ends the connections of held requests. */
  close(): Promise<void>;
}

export interface VendorDoubleOptions {
  /** 0 (the default) takes a free one. */
  port?: number;
  /** Told of every request as it is recorded, before it is answered. */
  onRequest?: (request: VendorRequest) => void;
  /** Told of every switch: the outage with its defaults filled in, or null when it recovers. */
  onOutage?: (outage: VendorOutage | null) => void;
  /**
   * The double's own control routes, each path under /__double/ (a RangeError otherwise): answered like
   * the outage switch, in any outage and never recorded, so a tester's curl always reaches them (a double
   * playing a vendor that sends webhooks is told to send one this way).
   */
  controls?: VendorRoute[];
}

function matchPath(pattern: string | RegExp, path: string): Record<string, string> | null {
  if (pattern instanceof RegExp) {
    const match = pattern.exec(path);
    return match ? { ...(match.groups ?? {}) } : null;
  }
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':') && actual !== '') params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return null;
  }
  return params;
}

/** The first route matching the request's method and path, with its params. */
function findRoute(
  routes: readonly VendorRoute[],
  incoming: IncomingRequest,
): { route: VendorRoute; params: Record<string, string> } | null {
  for (const route of routes) {
    if (route.method && route.method.toUpperCase() !== incoming.method) continue;
    const params = matchPath(route.path, incoming.path);
    if (params) return { route, params };
  }
  return null;
}

async function answerRoute(route: VendorRoute, request: VendorRequest): Promise<OutgoingResponse> {
  return toResponse(route.respond ? await route.respond(request) : route);
}

function toResponse(answer: VendorAnswer): OutgoingResponse {
  const status = answer.status ?? 200;
  if (answer.json !== undefined) return jsonResponse(status, answer.json, answer.headers);
  return { status, headers: answer.headers ?? {}, body: answer.body ?? '' };
}

/**
 * Starts a vendor double; routes are tried in order, the first match answers, no match answers 404.
 * A number for options is the port.
 */
export async function startVendorDouble(
  routes: VendorRoute[] = [],
  options: number | VendorDoubleOptions = {},
): Promise<VendorDouble> {
  const {
    port = 0,
    onRequest,
    onOutage,
    controls = [],
  } = typeof options === 'number' ? { port: options } : options;
  for (const control of controls) {
    if (typeof control.path !== 'string' || !control.path.startsWith(CONTROL_PREFIX))
      throw new RangeError(`a control route's path is a text under ${CONTROL_PREFIX}, not ${control.path}`);
  }
  const table = [...routes];
  const requests: VendorRequest[] = [];
  const keep = (request: VendorRequest) => {
    requests.push(request);
    onRequest?.(request);
    return request;
  };
  const outages = new OutageSwitch(onOutage);
  const server = await startLocalServer(async (incoming) => {
    const own = findRoute(controls, incoming);
    if (own) return answerRoute(own.route, record(incoming, own.params, true));
    const control = controlAnswer(incoming, outages, controls);
    if (control) return control;
    const outage = outages.current;
    if (outage) {
      keep(record(incoming, {}, false, outage.mode));
      return outages.answer(outage, incoming.signal);
    }
    const found = findRoute(table, incoming);
    if (found) return answerRoute(found.route, keep(record(incoming, found.params, true)));
    keep(record(incoming, {}, false));
    return jsonResponse(404, {
      error: `the vendor double has no route for ${incoming.method} ${incoming.path}`,
    });
  }, port);
  return {
    url: server.url,
    host: server.host,
    requests,
    route: (...more) => {
      table.push(...more);
    },
    reset: () => {
      requests.length = 0;
    },
    get outageMode() {
      return outages.current?.mode ?? null;
    },
    get held() {
      return outages.held;
    },
    outage: (outage) => {
      outages.set(typeof outage === 'string' ? { mode: outage } : outage);
    },
    recover: () => outages.recover(),
    // Ending the connections aborts each held request's signal, which frees it (OutageSwitch).
    close: () => server.close(),
  };
}

function record(
  incoming: IncomingRequest,
  params: Record<string, string>,
  matched: boolean,
  outage: OutageMode | null = null,
): VendorRequest {
  return {
    method: incoming.method,
    path: incoming.path,
    query: incoming.query,
    headers: incoming.headers,
    body: incoming.body.toString('utf8'),
    bodyBytes: new Uint8Array(incoming.body),
    params,
    matched,
    outage,
  };
}
