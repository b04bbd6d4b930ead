// The spellings in which a value the host sent can come back: vendors echo what they received decoded or
// re-encoded their own way (404 pages, JSON bodies, headers), and modules carry those answers inside
// their own JSON. Pure: a value in, its spellings out. Letter case is left to the matcher (redaction.ts),
// which compares without it.

/** RFC 3986 unreserved characters: the only ones a strict encoder leaves as they are. */
const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
/** What encodeURIComponent leaves besides the unreserved characters. */
const COMPONENT_KEEPS = "!'()*";
/** What encodeURI leaves besides those. */
const URI_KEEPS = `${COMPONENT_KEEPS};/?:@&=+$,#`;
/** WHATWG URL: printable ASCII a path keeps (all but space " # < > ? ` { }). */
const PATH_KEEPS = "!$%&'()*+,/:;=@[\\]^|";
/** WHATWG URL: printable ASCII a special URL's query keeps (all but space " # < > '). */
const QUERY_KEEPS = '!$%&()*+,/:;=?@[\\]^`{|}';

/** Per set of kept characters: what each byte becomes. */
const tables = new Map<string, string[]>();

function tableFor(keeps: string): string[] {
  let table = tables.get(keeps);
  if (!table) {
    table = Array.from({ length: 256 }, (_, byte) => {
      const char = String.fromCharCode(byte);
      const kept = byte < 0x80 && (UNRESERVED.includes(char) || keeps.includes(char));
      return kept ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    });
    tables.set(keeps, table);
  }
  return table;
}

/** Percent-encodes the UTF-8 bytes of `text`, keeping unreserved ASCII and `keeps`; upper-case hex. */
export function percentEncode(text: string, keeps = ''): string {
  const table = tableFor(keeps);
  const bytes = Buffer.from(text, 'utf8');
  const parts = new Array<string>(bytes.length);
  for (let i = 0; i < bytes.length; i++) parts[i] = table[bytes[i] as number] as string;
  return parts.join('');
}

/** application/x-www-form-urlencoded, as URLSearchParams writes a value. */
const formEncode = (text: string) => percentEncode(text, '*').replaceAll('~', '%7E').replaceAll('%20', '+');

const jsonEscape = (text: string) => JSON.stringify(text).slice(1, -1);
/** JSON as encoders that write only ASCII give it (Python's default, many others). */
const asciiJson = (text: string) =>
  jsonEscape(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** JSON as PHP writes it: slashes escaped. */
const slashJson = (text: string) => jsonEscape(text).replaceAll('/', '\\/');

const htmlEscape = (text: string, apostrophe: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", apostrophe);

/**
 * The base64 characters that depend on the value's bytes alone, at each of the three alignments the value
 * can have inside a longer base64 text (standard and URL alphabets).
 */
function base64Cores(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + bytes.length) * 8) / 6));
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

/** JSON escapes to the depth an answer holds: a vendor's JSON inside a module's JSON inside a record. */
function jsonSpellings(text: string): string[] {
  const once = [jsonEscape(text), asciiJson(text), slashJson(text), slashJson(asciiJson(text))];
  const twice = once.map(jsonEscape);
  return [...once, ...twice, jsonEscape(twice[0] as string)];
}

function percentSpellings(text: string): string[] {
  const once = [
    percentEncode(text),
    percentEncode(text, COMPONENT_KEEPS),
    percentEncode(text, URI_KEEPS),
    percentEncode(text, PATH_KEEPS),
    percentEncode(text, QUERY_KEEPS),
    formEncode(text),
  ];
  // A vendor echoing the URL it received encoded again (its %-escapes as %25).
  return [...once, ...once.slice(0, 2).map((spelling) => spelling.replaceAll('%', '%25'))];
}

/**
 * The value's UTF-8 bytes written out: hex, and every byte as %XX (unreserved characters too), also
 * encoded again. The matcher ignores the case of the hex digits; the value's own case changes the bytes.
 */
function byteSpellings(text: string): string[] {
  const hex = Buffer.from(text, 'utf8').toString('hex');
  const everyByte = hex.replace(/../g, '%$&');
  return [hex, everyByte, everyByte.replaceAll('%', '%25')];
}

/**
 * Characters every encoding above leaves as they are (unreserved but `~`, which a form encodes). A value
 * of these only (a call's tag, most API keys) is its own percent, JSON and HTML spelling.
 */
const KEPT_EVERYWHERE = /^[A-Za-z0-9\-._]*$/;

/** Every spelling of `value` the redactor looks for, each once, the value itself first. */
export function spellingsOf(value: string): string[] {
  if (KEPT_EVERYWHERE.test(value)) {
    // The same list as below, in the same order, without building the spellings equal to the value.
    const cased = [value, value.toLowerCase(), value.toUpperCase()];
    return [...new Set([...cased, ...base64Cores(value), ...cased.flatMap(byteSpellings)])];
  }
  return everySpelling(value);
}

/** spellingsOf built the long way, for any value. */
export function everySpelling(value: string): string[] {
  // HTTP trims a header value's outer spaces: a vendor echoes what it got.
  const cased = [value, value.toLowerCase(), value.toUpperCase(), value.trim()];
  // The matcher ignores ASCII case, also in %-escapes; other letters change their bytes with their case.
  const encoded = Buffer.byteLength(value) !== value.length ? cased : [value];
  const all = [
    ...cased,
    ...encoded.flatMap(percentSpellings),
    ...jsonSpellings(value),
    htmlEscape(value, '&#39;'),
    htmlEscape(value, '&#x27;'),
    ...base64Cores(value),
    ...cased.flatMap(byteSpellings),
  ];
  return [...new Set(all)];
}
