// http_request: how an app reaches its vendors. The host's rules (approved hosts, https, secrets filled
// only from tagged placeholders, 25 requests a call, redirects, digest) are described in
// docs/writing-apps.md and src/runner/egress/http.ts.
import { base64Decode, base64Encode } from './base64';
import { callHost, HostResult } from './host';
import { utf8 } from './io';
import { Value } from './json';
import { JSON } from './json-parse';

export class HttpResponse extends HostResult {
  /** The HTTP status, 0 when no response came. */
  get status(): i32 {
    return <i32>this.raw.getInteger('status', 0);
  }
  /** 200 to 299. */
  get ok(): bool {
    return this.status >= 200 && this.status < 300;
  }
  /** A response header by lower-case name (repeated headers joined with ", "), or null. */
  header(name: string): string | null {
    const headers = this.raw.getObject('headers');
    return headers === null ? null : headers.getStringOrNull(name.toLowerCase());
  }
  get headers(): Value {
    const headers = this.raw.getObject('headers');
    return headers === null ? Value.object() : headers;
  }
  /** The body as text ('' when it was not UTF-8: see bytes()). */
  get body(): string {
    return this.raw.getString('body');
  }
  /** The body's bytes, whether it came as text or base64. */
  bytes(): Uint8Array {
    const b64 = this.raw.getStringOrNull('bodyBase64');
    if (b64 !== null) {
      const decoded = base64Decode(b64);
      return decoded === null ? new Uint8Array(0) : decoded;
    }
    return utf8(this.body);
  }
  /** The body as JSON, or null. */
  json(): Value | null {
    return JSON.parse(this.body);
  }
  /** Sending failed: "not_sent" (the vendor cannot have it), "unknown" (it may have arrived), or null. */
  get network(): string | null {
    return this.raw.getStringOrNull('network');
  }
  /** No connection was made, so sending again cannot repeat anything at the vendor. */
  get notSent(): bool {
    return this.network == 'not_sent';
  }
}

/** One request for http_request; build with the static methods and the chainable setters. */
export class HttpRequest {
  method: string;
  url: string;
  headers: Value = Value.object();
  body: string | null = null;
  bodyBase64: string | null = null;
  timeoutMs: i32 = 0;
  auth: Value | null = null;

  constructor(method: string, url: string) {
    this.method = method;
    this.url = url;
  }

  static get(url: string): HttpRequest {
    return new HttpRequest('GET', url);
  }
  static post(url: string): HttpRequest {
    return new HttpRequest('POST', url);
  }
  static put(url: string): HttpRequest {
    return new HttpRequest('PUT', url);
  }
  static patch(url: string): HttpRequest {
    return new HttpRequest('PATCH', url);
  }
  static delete(url: string): HttpRequest {
    return new HttpRequest('DELETE', url);
  }

  header(name: string, value: string): HttpRequest {
    this.headers.setString(name, value);
    return this;
  }
  /** A text body, sent as UTF-8; secret placeholders in it are filled. */
  text(body: string, contentType: string = 'text/plain; charset=utf-8'): HttpRequest {
    this.body = body;
    this.bodyBase64 = null;
    if (!this.headers.has('content-type')) this.header('content-type', contentType);
    return this;
  }
  /** A JSON body with content-type application/json. */
  json(body: Value): HttpRequest {
    return this.text(body.toString(), 'application/json');
  }
  /** Bytes sent as they are (never filled with secrets). */
  bytes(body: Uint8Array, contentType: string = 'application/octet-stream'): HttpRequest {
    this.body = null;
    this.bodyBase64 = base64Encode(body);
    if (!this.headers.has('content-type')) this.header('content-type', contentType);
    return this;
  }
  /** 1 to 30000 ms; the host's default is 10000. */
  timeout(ms: i32): HttpRequest {
    this.timeoutMs = ms;
    return this;
  }
  bearer(token: string): HttpRequest {
    this.auth = Value.object().setString('type', 'bearer').setString('token', token);
    return this;
  }
  basic(username: string, password: string): HttpRequest {
    this.auth = Value.object()
      .setString('type', 'basic')
      .setString('username', username)
      .setString('password', password);
    return this;
  }
  digest(username: string, password: string): HttpRequest {
    this.auth = Value.object()
      .setString('type', 'digest')
      .setString('username', username)
      .setString('password', password);
    return this;
  }

  toJson(): Value {
    const r = Value.object().setString('method', this.method).setString('url', this.url);
    if (this.headers.length > 0) r.set('headers', this.headers);
    const body = this.body;
    if (body !== null) r.setString('body', body);
    const b64 = this.bodyBase64;
    if (b64 !== null) r.setString('bodyBase64', b64);
    if (this.timeoutMs > 0) r.setInteger('timeoutMs', this.timeoutMs);
    const auth = this.auth;
    if (auth !== null) r.set('auth', auth);
    return r;
  }

  send(): HttpResponse {
    return httpRequest(this);
  }
}

export function httpRequest(request: HttpRequest): HttpResponse {
  return new HttpResponse(callHost('http_request', request.toJson()));
}
