// The JSON request each export receives (docs/module-contract.md "Exports"), read from the call's input.
import { base64Decode } from './base64';
import { fromUtf8, inputText } from './io';
import { Value } from './json';
import { JSON } from './json-parse';
import { secretPlaceholder } from './secrets';

/** The call object every request carries. */
export class Call {
  id: string = '';
  tenantId: string = '';
  /** The install's webhook URL, when the deployment has a public webhook address. */
  callbackUrl: string | null = null;
  /** 22 characters drawn for this call: the tag of secret placeholders. */
  secretTag: string = '';

  static from(request: Value): Call {
    const call = new Call();
    const v = request.getObject('call');
    if (v === null) return call;
    call.id = v.getString('id');
    call.tenantId = v.getString('tenantId');
    call.callbackUrl = v.getStringOrNull('callbackUrl');
    call.secretTag = v.getString('secretTag');
    return call;
  }

  /** The placeholder the host fills with the install's secret NAME in this call. */
  secret(name: string): string {
    return secretPlaceholder(name, this.secretTag);
  }
}

/** invoke: { call, action, idempotencyKey, config, input }. */
export class InvokeRequest {
  call: Call = new Call();
  action: string = '';
  /** The same across retries of one step; null when the caller gave none. */
  idempotencyKey: string | null = null;
  /** The install's config, {{secret:NAME}} in its text already tagged as this call's placeholders. */
  config: Value = Value.object();
  input: Value = Value.null();
  raw: Value = Value.object();

  static from(raw: Value): InvokeRequest {
    const r = new InvokeRequest();
    r.raw = raw;
    r.call = Call.from(raw);
    r.action = raw.getString('action');
    r.idempotencyKey = raw.getStringOrNull('idempotencyKey');
    r.config = configOf(raw);
    const input = raw.get('input');
    if (input !== null) r.input = input;
    return r;
  }
}

/** handle_webhook: { call, config, request: { method, headers, query, bodyBase64 } }. */
export class WebhookRequest {
  call: Call = new Call();
  config: Value = Value.object();
  method: string = '';
  /** Lower-cased header names. */
  headers: Value = Value.object();
  query: Value = Value.object();
  bodyBase64: string = '';
  raw: Value = Value.object();

  static from(raw: Value): WebhookRequest {
    const r = new WebhookRequest();
    r.raw = raw;
    r.call = Call.from(raw);
    r.config = configOf(raw);
    const request = raw.getObject('request');
    if (request !== null) {
      r.method = request.getString('method');
      const headers = request.getObject('headers');
      if (headers !== null) r.headers = headers;
      const query = request.getObject('query');
      if (query !== null) r.query = query;
      r.bodyBase64 = request.getString('bodyBase64');
    }
    return r;
  }

  /** A header by name (any case); a repeated header's values joined with ", ". */
  header(name: string): string | null {
    const v = this.headers.get(name.toLowerCase());
    if (v === null) return null;
    if (v.isString()) return v.asString();
    if (v.isArray()) {
      const parts = new Array<string>();
      for (let k = 0; k < v.length; k++) if (v.at(k).isString()) parts.push(v.at(k).asString());
      return parts.join(', ');
    }
    return null;
  }

  /** A query parameter (unsigned: never an event's id or status). */
  queryParam(name: string): string | null {
    const v = this.query.get(name);
    if (v === null) return null;
    if (v.isString()) return v.asString();
    if (v.isArray() && v.length > 0 && v.at(0).isString()) return v.at(0).asString();
    return null;
  }

  /** The raw body bytes, exactly as the vendor sent them. */
  body(): Uint8Array {
    const bytes = base64Decode(this.bodyBase64);
    return bytes === null ? new Uint8Array(0) : bytes;
  }

  text(): string {
    return fromUtf8(this.body());
  }

  /** The body as JSON, or null. */
  json(): Value | null {
    return JSON.parse(this.text());
  }
}

/** handoff: { call, config, externalId, returnUrl }. */
export class HandoffRequest {
  call: Call = new Call();
  config: Value = Value.object();
  externalId: string = '';
  returnUrl: string = '';
  raw: Value = Value.object();

  static from(raw: Value): HandoffRequest {
    const r = new HandoffRequest();
    r.raw = raw;
    r.call = Call.from(raw);
    r.config = configOf(raw);
    r.externalId = raw.getString('externalId');
    r.returnUrl = raw.getString('returnUrl');
    return r;
  }
}

function configOf(raw: Value): Value {
  const config = raw.getObject('config');
  return config === null ? Value.object() : config;
}

/** The call's input parsed as JSON, or null when it is not JSON. */
export function readRequest(): Value | null {
  return JSON.parse(inputText());
}
