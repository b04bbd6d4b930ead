// The platform's host functions (docs/module-contract.md "Host functions"), each taking one JSON request and
// answering one JSON answer. Every answer may instead be a refusal { error, refused: true } (a limit, a
// bad request, or a host function called where it may not act, e.g. during the manifest export); each
// wrapper's result keeps the raw answer and says whether it failed.
import { base64Decode } from './base64';
import { freeBlock, fromBlock, fromUtf8, toBlock, utf8 } from './io';
import { Value } from './json';
import { JSON } from './json-parse';

@external('extism:host/user', 'http_request')
declare function host_http_request(offset: u64): u64;
@external('extism:host/user', 'hmac')
declare function host_hmac(offset: u64): u64;
@external('extism:host/user', 'hmac_verify')
declare function host_hmac_verify(offset: u64): u64;
@external('extism:host/user', 'log')
declare function host_log(offset: u64): u64;
@external('extism:host/user', 'cache')
declare function host_cache(offset: u64): u64;
@external('extism:host/user', 'document_read')
declare function host_document_read(offset: u64): u64;
@external('extism:host/user', 'ai')
declare function host_ai(offset: u64): u64;

/** Calls a host function by name with a JSON request; answers its JSON answer. */
export function callHost(name: string, request: Value): Value {
  const block = toBlock(utf8(request.toString()));
  let answer: u64 = 0;
  if (name == 'http_request') answer = host_http_request(block);
  else if (name == 'hmac') answer = host_hmac(block);
  else if (name == 'hmac_verify') answer = host_hmac_verify(block);
  else if (name == 'log') answer = host_log(block);
  else if (name == 'cache') answer = host_cache(block);
  else if (name == 'document_read') answer = host_document_read(block);
  else if (name == 'ai') answer = host_ai(block);
  else abort('no host function ' + name);
  freeBlock(block);
  const text = fromUtf8(fromBlock(answer));
  freeBlock(answer);
  const parsed = JSON.parse(text);
  if (parsed === null) return Value.object().setString('error', name + ': the host answered no JSON');
  return parsed;
}

/** What every wrapper answers: the raw answer, and its error when the host refused or failed. */
export class HostResult {
  constructor(public raw: Value) {}

  /** The host's error text, or null. */
  get error(): string | null {
    return this.raw.getStringOrNull('error');
  }
  get failed(): bool {
    return this.raw.has('error');
  }
  /** The host would not act: a bad request, a limit, a host or secret not allowed, the deadline. */
  get refused(): bool {
    return this.raw.getBool('refused');
  }
}

// ---- hmac and hmac_verify -------------------------------------------------------------------------------

/** How hmac reads its key and message and writes its signature (the host's defaults). */
export class HmacOptions {
  algorithm: string = 'sha256'; // sha256, sha1, sha512
  keyEncoding: string = 'utf8'; // utf8, hex, base64
  messageEncoding: string = 'utf8'; // utf8, base64
  encoding: string = 'hex'; // hex, base64

  static base64Message(): HmacOptions {
    const o = new HmacOptions();
    o.messageEncoding = 'base64';
    return o;
  }
}

export class HmacResult extends HostResult {
  get signature(): string {
    return this.raw.getString('signature');
  }
}

export class VerifyResult extends HostResult {
  /** True only when the host checked the signature and it matched. */
  get valid(): bool {
    return this.raw.getBool('valid');
  }
}

function hmacRequest(key: string, message: string, options: HmacOptions | null): Value {
  const o = options === null ? new HmacOptions() : options;
  return Value.object()
    .setString('algorithm', o.algorithm)
    .setString('key', key)
    .setString('keyEncoding', o.keyEncoding)
    .setString('message', message)
    .setString('messageEncoding', o.messageEncoding)
    .setString('encoding', o.encoding);
}

/** HMAC of message under key; key may be a whole secret placeholder {{secret:NAME:TAG}}. */
export function hmac(key: string, message: string, options: HmacOptions | null = null): HmacResult {
  return new HmacResult(callHost('hmac', hmacRequest(key, message, options)));
}

/** Checks a signature in constant time; key may be a whole secret placeholder. */
export function hmacVerify(
  key: string,
  message: string,
  signature: string,
  options: HmacOptions | null = null,
): VerifyResult {
  const request = hmacRequest(key, message, options).setString('signature', signature);
  return new VerifyResult(callHost('hmac_verify', request));
}

// ---- log ---------------------------------------------------------------------------------------------

/** Logs one line (level debug, info, warn or error); false when refused (200 lines a call). */
export function log(message: string, level: string = 'info'): bool {
  const answer = callHost('log', Value.object().setString('level', level).setString('message', message));
  return !answer.has('error');
}
export function logDebug(message: string): bool {
  return log(message, 'debug');
}
export function logInfo(message: string): bool {
  return log(message, 'info');
}
export function logWarn(message: string): bool {
  return log(message, 'warn');
}
export function logError(message: string): bool {
  return log(message, 'error');
}

// ---- cache -------------------------------------------------------------------------------------------

export class CacheResult extends HostResult {
  /** The cached text (get), or null when there is none or the call failed. */
  get value(): string | null {
    return this.raw.getStringOrNull('value');
  }
}

/** The install's cached value under name (1 to 100 of A-Z a-z 0-9 _ . : -). */
export function cacheGet(name: string): CacheResult {
  return new CacheResult(callHost('cache', Value.object().setString('op', 'get').setString('name', name)));
}

/** Keeps a value (8 characters to 8 KiB) for ttlSeconds (0: the host's maximum, one day). */
export function cacheSet(name: string, value: string, ttlSeconds: i32 = 0): CacheResult {
  const request = Value.object().setString('op', 'set').setString('name', name).setString('value', value);
  if (ttlSeconds > 0) request.setInteger('ttlSeconds', ttlSeconds);
  return new CacheResult(callHost('cache', request));
}

export function cacheDelete(name: string): CacheResult {
  return new CacheResult(callHost('cache', Value.object().setString('op', 'delete').setString('name', name)));
}

// ---- document_read -----------------------------------------------------------------------------------

export class DocumentResult extends HostResult {
  get id(): string {
    return this.raw.getString('id');
  }
  get name(): string | null {
    return this.raw.getStringOrNull('name');
  }
  get contentType(): string {
    return this.raw.getString('contentType');
  }
  get notFound(): bool {
    return this.raw.getBool('notFound');
  }
  get bodyBase64(): string {
    return this.raw.getString('bodyBase64');
  }
  bytes(): Uint8Array {
    const decoded = base64Decode(this.bodyBase64);
    return decoded === null ? new Uint8Array(0) : decoded;
  }
  text(): string {
    return fromUtf8(this.bytes());
  }
}

/** Reads one of the tenant's clean documents (calls of installs that read documents; 10 a call). */
export function documentRead(id: string): DocumentResult {
  return new DocumentResult(callHost('document_read', Value.object().setString('id', id)));
}
