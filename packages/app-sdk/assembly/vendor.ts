// How a vendor's answer becomes an error answer: which failures another attempt may cure. Shared by apps
// whose vendors follow the common HTTP conventions (429/5xx passing, 401/403 the credential).
import { Answer, error } from './answers';
import { HttpResponse } from './host-http';

/** The longest vendor text quoted in an error message. */
const DETAIL_CHARS = 300;

/** Retry-After in delta-seconds as milliseconds; -1 when absent or an HTTP date (left to the platform's backoff). */
export function retryAfterMs(response: HttpResponse): i64 {
  const header = response.header('retry-after');
  if (header === null) return -1;
  const text = header.trim();
  if (text.length == 0 || text.length > 9) return -1;
  let seconds: i64 = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return -1;
    seconds = seconds * 10 + <i64>(c - 0x30);
  }
  return seconds * 1000;
}

/** The vendor's own words: a JSON detail/message/error text, else the start of the body. */
export function vendorDetail(response: HttpResponse): string {
  const json = response.json();
  if (json !== null && json.isObject()) {
    const names = ['detail', 'message', 'error'];
    for (let k = 0; k < names.length; k++) {
      const text = json.getStringOrNull(names[k]);
      if (text !== null) return clip(text);
      const nested = json.getObject(names[k]);
      if (nested !== null && nested.getStringOrNull('message') !== null)
        return clip(nested.getString('message'));
    }
  }
  return clip(response.body.trim());
}

function clip(text: string): string {
  return text.length > DETAIL_CHARS ? text.substring(0, DETAIL_CHARS) + '…' : text;
}

/**
 * The error answer for a request that did not succeed, or null when the vendor answered 2xx.
 * Transport failures, 429 and 5xx may pass on another attempt (retryable, with Retry-After); 401 and
 * 403 are the credential (named by credentialSecret); any other answer is final. `what` names the
 * vendor in messages.
 */
export function failureOf(
  response: HttpResponse,
  what: string,
  idempotent: bool,
  credentialSecret: string = 'API_KEY',
): Answer | null {
  if (response.failed) {
    if (response.refused) return error(what + ': the platform refused the request: ' + response.error!);
    if (response.notSent) return error(what + ' could not be reached: ' + response.error!, true);
    // The request may have arrived: only a request that changes nothing may go again.
    return error(what + ': no answer came back: ' + response.error!, idempotent);
  }
  const status = response.status;
  if (status >= 200 && status < 300) return null;
  const detail = vendorDetail(response);
  const said = detail.length > 0 ? ': ' + detail : '';
  if (status == 429 || status >= 500) {
    return error(what + ' answered ' + status.toString() + said, true, retryAfterMs(response));
  }
  if (status == 401 || status == 403) {
    return error(
      'authentication failed: ' +
        what +
        ' answered ' +
        status.toString() +
        ' (check the ' +
        credentialSecret +
        ' secret)' +
        said,
    );
  }
  return error(what + ' answered ' + status.toString() + said);
}
