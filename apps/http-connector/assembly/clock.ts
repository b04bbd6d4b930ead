// The wall clock, read through WASI (the module contract admits wasi_snapshot_preview1 apart from its
// sock_ and path_ functions, and the runner provides it), and HTTP dates (RFC 9110 §5.6.7).

@external('wasi_snapshot_preview1', 'clock_time_get')
declare function clock_time_get(id: u32, precision: u64, time: usize): u16;

const REALTIME: u32 = 0;

/** Unix seconds now, or -1 when the clock cannot be read. */
export function nowSeconds(): i64 {
  const cell = new ArrayBuffer(8);
  const at = changetype<usize>(cell);
  if (clock_time_get(REALTIME, 1_000_000_000, at) != 0) return -1;
  return <i64>(load<u64>(at) / 1_000_000_000);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: i64, month: i64, day: i64): i64 {
  const y = month <= 2 ? year - 1 : year;
  const era = (y >= 0 ? y : y - 399) / 400;
  const yoe = y - era * 400;
  const doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Digits only (1 to 18 of them) as a number, else -1. */
export function digitsValue(text: string): i64 {
  if (text.length < 1 || text.length > 18) return -1;
  let n: i64 = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + <i64>(c - 0x30);
  }
  return n;
}

/** Unix seconds of an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), or -1. */
export function parseHttpDate(text: string): i64 {
  const comma = text.indexOf(',');
  if (comma < 0) return -1;
  const parts = text.substring(comma + 1).trim().split(' ');
  if (parts.length != 5 || parts[4] != 'GMT') return -1;
  const day = digitsValue(parts[0]);
  const month = MONTHS.indexOf(parts[1]) + 1;
  const year = digitsValue(parts[2]);
  const time = parts[3].split(':');
  if (day < 1 || day > 31 || month < 1 || year < 1970 || time.length != 3) return -1;
  const h = digitsValue(time[0]);
  const m = digitsValue(time[1]);
  const s = digitsValue(time[2]);
  if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60) return -1;
  return daysFromCivil(year, <i64>month, day) * 86400 + h * 3600 + m * 60 + s;
}

/**
 * The wait a Retry-After header asks for, in milliseconds: delay-seconds, or an HTTP date less the
 * clock (0 once past). -1 when there is no header or it cannot be read.
 */
export function retryAfterMs(header: string | null): i64 {
  if (header === null) return -1;
  const text = header.trim();
  const seconds = digitsValue(text);
  if (seconds >= 0) return seconds > 86_400 ? 86_400_000 : seconds * 1000;
  const at = parseHttpDate(text);
  if (at < 0) return -1;
  const now = nowSeconds();
  if (now < 0) return -1;
  return at <= now ? 0 : (at - now > 86_400 ? 86_400_000 : (at - now) * 1000);
}
