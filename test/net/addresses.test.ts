// Address classes: only public unicast is reached; every form that leads back into
// the runner's own networks (directly, mapped, compatible, NAT64, 6to4, Teredo) is refused.
import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  addressRefusal,
  classifyAddress,
  isIpLiteral,
  parseIPv4,
  parseIPv6,
} from '../../src/net/addresses.ts';

describe('parsing', () => {
  it('reads canonical dotted quads only', () => {
    expect(parseIPv4('0.0.0.0')).toBe(0);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('1.2.3.4')).toBe(0x01020304);
    for (const text of [
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1.2.3.256',
      '0x7f.0.0.1',
      '1..2.3',
      '',
      'a.b.c.d',
      ' 1.2.3.4',
    ]) {
      expect(parseIPv4(text), text).toBeNull();
    }
  });

  it('reads IPv6 in its every spelling', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('[::1]')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('[fe80::1%25eth0]')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('2001:DB8::8:800:200C:417A')).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('::127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(parseIPv6('64:ff9b::10.0.0.1')).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1]);
    expect(parseIPv6('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
    for (const text of [
      '',
      ':',
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7:8::',
      ':1:2:3:4:5:6:7',
      '12345::',
      '::ffff:1.2.3',
      '::ffff:1.2.3.4:5',
      'g::1',
      '1.2.3.4',
      'localhost',
    ]) {
      expect(parseIPv6(text), text).toBeNull();
    }
  });

  it('tells literals from names', () => {
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('api.vendor.com')).toBe(false);
  });
});

const CASES: Array<[string, AddressClass]> = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'reserved'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.5', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['100.128.0.0', 'public'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.88.99.1', '6to4'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['1.1.1.1', 'public'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fec0::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['::8.8.8.8', 'reserved'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::ffff:0:8.8.8.8', 'reserved'],
  ['64:ff9b::8.8.8.8', 'nat64'],
  ['64:ff9b::7f00:1', 'nat64'],
  ['64:ff9b:1::1', 'nat64'],
  ['64:ff9b:1:ffff::1', 'nat64'],
  ['64:ff9b:2::1', 'reserved'],
  ['2002::1', '6to4'],
  ['2002:7f00:1::', '6to4'],
  ['2001::1', 'teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'reserved'],
  ['2001:1ff::1', 'reserved'],
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['2001:200::1', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  // not addresses
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['1.2.3.04', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(CASES)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('addressRefusal', () => {
  it('passes only public addresses when private networks are off', () => {
    for (const [address, kind] of CASES) {
      expect(addressRefusal(address, false), address).toBe(kind === 'public' ? null : kind);
    }
  });

  it('passes private, loopback and the rest on a private-network stack, never what no server can be', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.5',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '64:ff9b::1',
      '2002::1',
    ]) {
      expect(addressRefusal(address, true), address).toBeNull();
    }
    expect(addressRefusal('0.0.0.0', true)).toBe('unspecified');
    expect(addressRefusal('::', true)).toBe('unspecified');
    expect(addressRefusal('224.0.0.1', true)).toBe('multicast');
    expect(addressRefusal('255.255.255.255', true)).toBe('broadcast');
    expect(addressRefusal('not-an-address', true)).toBe('invalid');
  });
});
