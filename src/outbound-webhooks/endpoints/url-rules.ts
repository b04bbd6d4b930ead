// Which URLs an endpoint may be saved with (docs/outbound-webhooks.md "The URL rules"): https only, no
// user name or password, no fragment, no localhost name, and no IP-literal host of a class webhooks are
// never sent to (private, loopback, link-local, shared, NAT64, 6to4, Teredo, … : src/net/addresses.ts).
// WEBHOOK_ALLOW_PRIVATE_NETWORKS (development only) admits http, localhost and private addresses.
// A name is not resolved here: one that resolves to a refused address is refused at each connection
// (DeliveryPoster's connector), whatever it resolved to when the URL was saved. Pure.
import { addressRefusal, isIpLiteral } from '../../net/addresses.ts';
import { isLocalhostName } from '../../net/names.ts';

/** The longest URL an endpoint keeps. */
export const MAX_URL_LENGTH = 2000;

/** Spaces and control characters: a URL parser would drop or encode them, so what is saved is not what is sent. */
const unsendable = (text: string) =>
  [...text].some((char) => /\s/.test(char) || (char.codePointAt(0) ?? 0) < 0x20 || char === '\u007f');

/** Why an endpoint may not be saved with this URL (a sentence for `details.issues`), or null when it may. */
export function endpointUrlRefusal(text: string, allowPrivateNetworks: boolean): string | null {
  if (unsendable(text)) return 'must not hold spaces or control characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivateNetworks && url.protocol === 'http:')) {
    return allowPrivateNetworks ? 'must use https or http' : 'must use https';
  }
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  // `#` alone leaves url.hash empty: look at the text.
  if (text.includes('#')) return 'must not hold a fragment (#…): it is never sent';
  const host = url.hostname;
  if (host === '') return 'must name a host';
  if (!allowPrivateNetworks && isLocalhostName(host.toLowerCase())) {
    return 'must not name localhost: webhooks go to public addresses only';
  }
  // The parser has already read every IPv4 spelling (0x7f.1, 2130706433, 0177.0.0.1) into a dotted quad.
  if (isIpLiteral(host)) {
    const refused = addressRefusal(host, allowPrivateNetworks);
    if (refused) {
      const article = /^[aeiou]/.test(refused) ? 'an' : 'a';
      return `names ${article} ${refused} address (${host}): webhooks go to public addresses only`;
    }
  }
  return null;
}
