// HTTP Digest authentication (RFC 7616) for http_request: reading a server's challenges and computing
// the Authorization answer. MD5 and SHA-256 (and their -sess forms), qop auth or auth-int, and the
// RFC 2069 form without qop that old devices still send. Pure apart from the random client nonce.
import { createHash, randomBytes } from 'node:crypto';

export interface Challenge {
  /** Lower-cased: `digest`, `basic`, `bearer`, … */
  scheme: string;
  /** Parameter names lower-cased; quoted values unescaped. */
  params: Record<string, string>;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/** Parses WWW-Authenticate values, each of which may hold several comma-separated challenges. */
export function parseChallenges(values: string | readonly string[] | undefined): Challenge[] {
  const texts = values === undefined ? [] : typeof values === 'string' ? [values] : values;
  const challenges: Challenge[] = [];
  for (const text of texts) {
    let pos = 0;
    let current: Challenge | null = null;
    const skip = (chars: RegExp) => {
      while (pos < text.length && chars.test(text[pos] as string)) pos++;
    };
    const token = (): string => {
      const start = pos;
      while (pos < text.length && TOKEN.test(text[pos] as string)) pos++;
      return text.slice(start, pos);
    };
    while (pos < text.length) {
      skip(/[\s,]/);
      const name = token();
      if (name === '') {
        pos++; // a character no grammar allows here: step over it
        continue;
      }
      skip(/\s/);
      if (text[pos] === '=' && current) {
        pos++;
        skip(/\s/);
        let value = '';
        if (text[pos] === '"') {
          pos++;
          while (pos < text.length && text[pos] !== '"') {
            if (text[pos] === '\\' && pos + 1 < text.length) pos++;
            value += text[pos];
            pos++;
          }
          pos++;
        } else {
          value = token();
        }
        current.params[name.toLowerCase()] = value;
      } else {
        current = { scheme: name.toLowerCase(), params: {} };
        challenges.push(current);
      }
    }
  }
  return challenges;
}

const ALGORITHMS: Record<string, 'md5' | 'sha256'> = {
  md5: 'md5',
  'md5-sess': 'md5',
  'sha-256': 'sha256',
  'sha-256-sess': 'sha256',
};

/** The Digest challenge to answer: SHA-256 before MD5; null when none is one this host can answer. */
export function chooseDigestChallenge(challenges: readonly Challenge[]): Challenge | null {
  const usable = challenges.filter((c) => {
    if (c.scheme !== 'digest' || !c.params.nonce || c.params.realm === undefined) return false;
    if (!((c.params.algorithm ?? 'MD5').toLowerCase() in ALGORITHMS)) return false;
    return c.params.qop === undefined || pickQop(c.params.qop) !== null;
  });
  const strong = usable.find((c) => (c.params.algorithm ?? '').toLowerCase().startsWith('sha-256'));
  return strong ?? usable[0] ?? null;
}

function pickQop(offered: string): 'auth' | 'auth-int' | null {
  const options = offered.split(',').map((q) => q.trim().toLowerCase());
  if (options.includes('auth')) return 'auth';
  if (options.includes('auth-int')) return 'auth-int';
  return null;
}

export interface DigestInput {
  challenge: Challenge;
  method: string;
  /** The request target as sent: path and query. */
  uri: string;
  username: string;
  password: string;
  /** The request body, for qop auth-int. */
  body?: Uint8Array;
  /** Fixed in tests; random otherwise. */
  cnonce?: string;
}

export interface DigestAnswer {
  /** The whole Authorization header value. */
  header: string;
  /** The response hash inside it. */
  response: string;
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** Computes the Authorization header value answering a Digest challenge (nonce count 1). */
export function digestAuthorization(input: DigestInput): DigestAnswer {
  const { params } = input.challenge;
  const algorithmName = params.algorithm ?? 'MD5';
  const hashName = ALGORITHMS[algorithmName.toLowerCase()] ?? 'md5';
  const hash = (text: string | Uint8Array) => createHash(hashName).update(text).digest('hex');
  const realm = params.realm ?? '';
  const nonce = params.nonce ?? '';
  const cnonce = input.cnonce ?? randomBytes(16).toString('hex');
  const nc = '00000001';
  const qop = params.qop === undefined ? null : pickQop(params.qop);

  let ha1 = hash(`${input.username}:${realm}:${input.password}`);
  if (algorithmName.toLowerCase().endsWith('-sess')) ha1 = hash(`${ha1}:${nonce}:${cnonce}`);
  const ha2 =
    qop === 'auth-int'
      ? hash(`${input.method}:${input.uri}:${hash(input.body ?? new Uint8Array())}`)
      : hash(`${input.method}:${input.uri}`);
  const response = qop
    ? hash(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`)
    : hash(`${ha1}:${nonce}:${ha2}`);

  const userhash = params.userhash?.toLowerCase() === 'true';
  const parts: string[] = [];
  if (userhash) parts.push(`username=${quote(hash(`${input.username}:${realm}`))}`);
  else if (/^[\x20-\x7e]*$/.test(input.username)) parts.push(`username=${quote(input.username)}`);
  else parts.push(`username*=UTF-8''${encodeURIComponent(input.username)}`);
  parts.push(`realm=${quote(realm)}`, `uri=${quote(input.uri)}`, `algorithm=${algorithmName}`);
  parts.push(`nonce=${quote(nonce)}`);
  if (qop) parts.push(`nc=${nc}`, `cnonce=${quote(cnonce)}`, `qop=${qop}`);
  parts.push(`response=${quote(response)}`);
  if (params.opaque !== undefined) parts.push(`opaque=${quote(params.opaque)}`);
  if (userhash) parts.push('userhash=true');
  return { header: `Digest ${parts.join(', ')}`, response };
}
