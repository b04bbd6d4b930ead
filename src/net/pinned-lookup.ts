// The connect-to-the-checked-address pattern: a connection is made only to addresses that were resolved
// and judged before it, because net.connect asks this lookup instead of DNS. A name re-pointed between the
// check and the connect (DNS rebinding) therefore changes nothing.
import type { LookupAddress, LookupOneOptions } from 'node:dns';

export interface CheckedAddress {
  address: string;
  family: number;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A lookup that answers only the checked addresses. */
export function pinnedLookup(addresses: readonly CheckedAddress[]) {
  return (_hostname: string, options: LookupOneOptions & { all?: boolean }, callback: LookupCallback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '');
    } else if (options.all) {
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
}
