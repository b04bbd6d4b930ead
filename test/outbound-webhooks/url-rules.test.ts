// The URL rules at save: https only, no credentials, no fragment, no localhost, no IP literal of a class
// webhooks are never sent to; WEBHOOK_ALLOW_PRIVATE_NETWORKS admits http, localhost and private ranges.
import { describe, expect, it } from 'vitest';
import { endpointUrlRefusal } from '../../src/outbound-webhooks/endpoints/url-rules.ts';

const PUBLIC_ONLY = false;
const PRIVATE_TOO = true;

describe('endpointUrlRefusal', () => {
  it.each([
    'https://hooks.example.com/platform',
    'https://hooks.example.com:8443/in?token=abc',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://xn--bcher-kva.example/hook',
    'https://hooks.example.com',
  ])('takes %s', (url) => {
    expect(endpointUrlRefusal(url, PUBLIC_ONLY)).toBeNull();
  });

  it.each([
    ['hooks.example.com/in', 'must be an absolute URL'],
    ['', 'must be an absolute URL'],
    ['http://hooks.example.com/in', 'must use https'],
    ['ftp://hooks.example.com/in', 'must use https'],
    ['wss://hooks.example.com/in', 'must use https'],
    [' https://hooks.example.com/in', 'must not hold spaces or control characters'],
    ['https://hooks.example.com/in\n', 'must not hold spaces or control characters'],
    ['https://hooks.example.com/a b', 'must not hold spaces or control characters'],
    ['https://user:pass@hooks.example.com/in', 'must not hold a user name or password'],
    ['https://user@hooks.example.com/in', 'must not hold a user name or password'],
    ['https://hooks.example.com/in#part', 'must not hold a fragment (#…): it is never sent'],
    ['https://hooks.example.com/in#', 'must not hold a fragment (#…): it is never sent'],
    ['https://localhost/in', 'must not name localhost: webhooks go to public addresses only'],
    ['https://LOCALHOST./in', 'must not name localhost: webhooks go to public addresses only'],
    ['https://api.localhost/in', 'must not name localhost: webhooks go to public addresses only'],
  ])('refuses %j: %s', (url, message) => {
    expect(endpointUrlRefusal(url, PUBLIC_ONLY)).toBe(message);
  });

  it.each([
    ['https://127.0.0.1/in', 'loopback'],
    ['https://127.1/in', 'loopback'],
    ['https://2130706433/in', 'loopback'],
    ['https://0x7f.0.0.1/in', 'loopback'],
    ['https://[::1]/in', 'loopback'],
    ['https://10.0.0.1/in', 'private'],
    ['https://172.16.5.4/in', 'private'],
    ['https://192.168.1.1/in', 'private'],
    ['https://[fd00::1]/in', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[fe80::1]/in', 'link-local'],
    ['https://100.64.0.1/in', 'shared'],
    ['https://[::ffff:127.0.0.1]/in', 'loopback'],
    ['https://[::ffff:10.0.0.1]/in', 'private'],
    ['https://[64:ff9b::a00:1]/in', 'nat64'],
    ['https://[64:ff9b:1::1]/in', 'nat64'],
    ['https://[2002::1]/in', '6to4'],
    ['https://[2001::1]/in', 'teredo'],
    ['https://0.0.0.0/in', 'unspecified'],
    ['https://[::]/in', 'unspecified'],
    ['https://224.0.0.1/in', 'multicast'],
    ['https://255.255.255.255/in', 'broadcast'],
    ['https://192.0.2.1/in', 'documentation'],
  ])('refuses %s, a %s address', (url, kind) => {
    expect(endpointUrlRefusal(url, PUBLIC_ONLY)).toMatch(
      new RegExp(`^names an? ${kind} address \\(.+\\): webhooks go to public addresses only$`),
    );
  });

  it('says which host it refused, as the URL parser reads it', () => {
    expect(endpointUrlRefusal('https://0177.0.0.1/in', PUBLIC_ONLY)).toBe(
      'names a loopback address (127.0.0.1): webhooks go to public addresses only',
    );
    expect(endpointUrlRefusal('https://[0:0:0:0:0:0:0:1]/in', PUBLIC_ONLY)).toBe(
      'names a loopback address ([::1]): webhooks go to public addresses only',
    );
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
    it.each([
      'http://127.0.0.1:4000/in',
      'https://localhost/in',
      'http://localhost:8080/in',
      'https://10.0.0.1/in',
      'http://[::1]:9000/in',
      'https://169.254.169.254/in',
      'http://hooks.example.com/in',
    ])('takes %s', (url) => {
      expect(endpointUrlRefusal(url, PRIVATE_TOO)).toBeNull();
    });

    it.each([
      ['ftp://127.0.0.1/in', 'must use https or http'],
      ['http://u:p@127.0.0.1/in', 'must not hold a user name or password'],
      ['http://127.0.0.1/in#x', 'must not hold a fragment (#…): it is never sent'],
      ['http://0.0.0.0/in', 'names an unspecified address (0.0.0.0): webhooks go to public addresses only'],
      [
        'http://255.255.255.255/in',
        'names a broadcast address (255.255.255.255): webhooks go to public addresses only',
      ],
    ])('still refuses %s', (url, message) => {
      expect(endpointUrlRefusal(url, PRIVATE_TOO)).toBe(message);
    });
  });
});
