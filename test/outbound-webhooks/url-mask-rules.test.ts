// The audit trail shows an endpoint's URL as its origin with path and query masked.
import { describe, expect, it } from 'vitest';
import { maskedUrl } from '../../src/outbound-webhooks/endpoints/url-mask-rules.ts';

describe('maskedUrl', () => {
  it.each([
    ['https://hooks.example.com/platform/in?token=s3cr3t', 'https://hooks.example.com/…'],
    ['https://hooks.example.com', 'https://hooks.example.com/…'],
    ['https://hooks.example.com/', 'https://hooks.example.com/…'],
    ['https://Hooks.Example.COM:8443/t/abc', 'https://hooks.example.com:8443/…'],
    ['https://hooks.example.com:443/t/abc', 'https://hooks.example.com/…'],
    ['http://127.0.0.1:4000/in?key=1', 'http://127.0.0.1:4000/…'],
    ['https://[2606:4700::1111]/in', 'https://[2606:4700::1111]/…'],
    ['https://user:pass@hooks.example.com/in', 'https://hooks.example.com/…'],
    ['https://hooks.example.com/in#frag', 'https://hooks.example.com/…'],
    ['not a url', '…'],
    ['mailto:someone@example.com', '…'],
  ])('%s → %s', (url, masked) => {
    expect(maskedUrl(url)).toBe(masked);
  });
});
