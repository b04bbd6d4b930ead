// The request a step asks for, as http_request sends it: the install's base URL, config headers,
// authentication and variables (secret variables of its config: docs/installs.md). A <<key>> of a variable is
// replaced by its value, or for a secret variable by the call's placeholder, which only the host fills.
// Config text may place any variable; a step's input places a secret variable only in the stepPlaces
// the install allows it (path, query, headers, body).
import { HttpRequest, InvokeRequest, readVariables, utf8, Value, Variable } from '@apps-platform/app-sdk';

export const PLACE_CONFIG = 'config';
export const PLACE_PATH = 'path';
export const PLACE_QUERY = 'query';
export const PLACE_HEADERS = 'headers';
export const PLACE_BODY = 'body';

/** Text as it is (headers, bodies). */
const AS_IS: i32 = 0;
/** Path text: characters a path may hold stay; variable values are encoded as one component. */
const AS_PATH: i32 = 1;
/** A query name or value: everything but unreserved characters is percent-encoded. */
const AS_COMPONENT: i32 = 2;

const HEX = '0123456789ABCDEF';
const PATH_CHARS = "/?=&%:@!$'()*+,;";
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Methods whose repetition has no further effect (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'];

function unreserved(b: u8): bool {
  return (
    (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b == 0x2d || b == 0x2e || b == 0x5f || b == 0x7e
  );
}

/** Percent-encodes the UTF-8 bytes of text, keeping unreserved characters and those in keep. */
export function percentEncode(text: string, keep: string): string {
  const bytes = utf8(text);
  const out = new Array<string>();
  for (let k = 0; k < bytes.length; k++) {
    const b = bytes[k];
    if (unreserved(b) || (b < 0x80 && keep.length > 0 && keep.includes(String.fromCharCode(b)))) {
      out.push(String.fromCharCode(b));
    } else {
      out.push('%' + HEX.charAt(b >> 4) + HEX.charAt(b & 15));
    }
  }
  return out.join('');
}

/** Expands <<key>> for one place; the first misplaced secret variable is kept in problem. */
export class Places {
  variables: Array<Variable>;
  problem: string | null = null;

  constructor(config: Value, public tag: string) {
    this.variables = readVariables(config, '/variables');
  }

  find(key: string): Variable | null {
    for (let k = 0; k < this.variables.length; k++) if (this.variables[k].key == key) return this.variables[k];
    return null;
  }

  literal(text: string, encoding: i32): string {
    if (encoding == AS_PATH) return percentEncode(text, PATH_CHARS);
    if (encoding == AS_COMPONENT) return percentEncode(text, '');
    return text;
  }

  value(v: Variable, place: string, encoding: i32): string {
    if (v.secret) {
      if (place != PLACE_CONFIG && !v.placedIn(place)) {
        if (this.problem === null) {
          this.problem =
            'variable <<' + v.key + '>> is secret and may not be placed in the ' + place +
            ' (its stepPlaces: ' + (v.stepPlaces.length > 0 ? v.stepPlaces.join(', ') : 'none') + ')';
        }
        return '';
      }
      // The placeholder goes out as it is: the host finds it and fills the value.
      return v.text(this.tag);
    }
    const text = v.text(this.tag);
    return encoding == AS_IS ? text : percentEncode(text, '');
  }

  /** The text with each <<key>> of a variable replaced; other text (encoded for the place) stays. */
  expand(text: string, place: string, encoding: i32 = AS_IS): string {
    const out = new Array<string>();
    let from = 0;
    let scan = 0;
    while (true) {
      const open = text.indexOf('<<', scan);
      if (open < 0) break;
      const close = text.indexOf('>>', open + 2);
      if (close < 0) break;
      const v = this.find(text.substring(open + 2, close));
      if (v === null) {
        scan = open + 1;
        continue;
      }
      out.push(this.literal(text.substring(from, open), encoding));
      out.push(this.value(v, place, encoding));
      from = scan = close + 2;
    }
    out.push(this.literal(text.substring(from), encoding));
    return out.join('');
  }

  /** A JSON body with its member names and string values expanded. */
  expandJson(value: Value): Value {
    if (value.isString()) return Value.string(this.expand(value.asString(), PLACE_BODY));
    if (value.isArray()) {
      const copy = Value.array();
      for (let k = 0; k < value.length; k++) copy.push(this.expandJson(value.at(k)));
      return copy;
    }
    if (value.isObject()) {
      const copy = Value.object();
      const keys = value.keys();
      for (let k = 0; k < keys.length; k++) copy.set(this.expand(keys[k], PLACE_BODY), this.expandJson(value.get(keys[k])!));
      return copy;
    }
    return value;
  }
}

/** The request to send, or why there is none. */
export class Outbound {
  request: HttpRequest | null = null;
  problem: string = '';
  method: string = '';
  /** An idempotency key went with it, so the vendor drops a repeat. */
  keyed: bool = false;

  /** Repeating it cannot do anything twice: an idempotent method, or a key the vendor deduplicates on. */
  get repeatable(): bool {
    return this.keyed || IDEMPOTENT_METHODS.includes(this.method);
  }

  static fail(problem: string): Outbound {
    const o = new Outbound();
    o.problem = problem;
    return o;
  }
}

function queryText(value: Value): string | null {
  if (value.isString()) return value.asString();
  if (value.isNumber() || value.isBool()) return value.toString();
  return null;
}

function queryString(query: Value, places: Places): string {
  const parts = new Array<string>();
  const names = query.keys();
  for (let k = 0; k < names.length; k++) {
    const name = places.expand(names[k], PLACE_QUERY, AS_COMPONENT);
    const item = query.get(names[k])!;
    const values = item.isArray() ? item.toArray() : [item];
    for (let i = 0; i < values.length; i++) {
      const text = queryText(values[i]);
      if (text !== null) parts.push(name + '=' + places.expand(text, PLACE_QUERY, AS_COMPONENT));
    }
  }
  return parts.join('&');
}

function setHeaders(target: HttpRequest, headers: Value | null, places: Places, place: string): void {
  if (headers === null) return;
  const names = headers.keys();
  for (let k = 0; k < names.length; k++) {
    const value = headers.get(names[k])!;
    if (value.isString()) target.header(names[k].toLowerCase(), places.expand(value.asString(), place));
  }
}

/** The credentials of config auth: through http_request's auth field, or the API key header. */
function authenticate(target: HttpRequest, request: InvokeRequest): string {
  const auth = request.config.getObject('auth');
  if (auth === null) return '';
  const type = auth.getString('type', 'none');
  const call = request.call;
  if (type == 'bearer') {
    target.bearer(call.secret('TOKEN'));
  } else if (type == 'basic' || type == 'digest') {
    const username = auth.getStringOrNull('username');
    if (username === null) return 'config auth.username is required for ' + type + ' authentication';
    if (type == 'basic') target.basic(username, call.secret('PASSWORD'));
    else target.digest(username, call.secret('PASSWORD'));
  } else if (type == 'apiKey') {
    const header = auth.getString('header');
    if (header.length == 0) return 'config auth.header is required for apiKey authentication';
    target.header(header.toLowerCase(), auth.getString('prefix') + call.secret('API_KEY'));
  } else if (type != 'none') {
    return 'config auth.type ' + type + ' is not one of none, bearer, basic, digest, apiKey';
  }
  return '';
}

/** Builds the request of an invoke's input { method, path, query?, headers?, body?, timeoutMs? }. */
export function outbound(request: InvokeRequest): Outbound {
  const input = request.input;
  const config = request.config;
  if (!input.isObject()) return Outbound.fail('the input must be an object { method, path, ... }');
  const method = input.getString('method').toUpperCase();
  if (!METHODS.includes(method)) return Outbound.fail('input method must be one of ' + METHODS.join(', '));
  const path = input.getString('path');
  if (!path.startsWith('/') || path.includes('#')) return Outbound.fail('input path must start with / and hold no #');
  let base = config.getString('baseUrl');
  if (!base.startsWith('https://') && !base.startsWith('http://')) return Outbound.fail('config baseUrl is not set');
  while (base.endsWith('/')) base = base.substring(0, base.length - 1);

  const places = new Places(config, request.call.secretTag);
  // What follows the first ? is query, whatever field it was written in: a secret allowed in the path
  // only must not reach the query through it.
  const mark = path.indexOf('?');
  let url = base + places.expand(mark < 0 ? path : path.substring(0, mark), PLACE_PATH, AS_PATH);
  if (mark >= 0) url += '?' + places.expand(path.substring(mark + 1), PLACE_QUERY, AS_PATH);
  const query = input.getObject('query');
  if (query !== null && query.length > 0) {
    const text = queryString(query, places);
    if (text.length > 0) url += (url.includes('?') ? '&' : '?') + text;
  }
  const out = new Outbound();
  out.method = method;
  const r = new HttpRequest(method, url);
  setHeaders(r, config.getObject('headers'), places, PLACE_CONFIG);
  setHeaders(r, input.getObject('headers'), places, PLACE_HEADERS);
  const keyHeader = config.getString('idempotencyKeyHeader');
  const key = request.idempotencyKey;
  if (keyHeader.length > 0 && key !== null) {
    r.header(keyHeader.toLowerCase(), key);
    out.keyed = true;
  }
  const authProblem = authenticate(r, request);
  if (authProblem.length > 0) return Outbound.fail(authProblem);

  const body = input.get('body');
  if (body !== null && !body.isNull()) {
    if (body.isString()) r.text(places.expand(body.asString(), PLACE_BODY));
    else r.json(places.expandJson(body));
  }
  const timeout = input.getInteger('timeoutMs', 0);
  if (timeout > 0 && timeout <= 30000) r.timeout(<i32>timeout);
  const misplaced = places.problem;
  if (misplaced !== null) return Outbound.fail(misplaced);
  out.request = r;
  return out;
}
