// A call's secret tag: 16 random bytes as 22 base64url characters, never the same twice, also across the
// refills of the pool the tags are drawn from (4 KiB: 256 tags).
import { expect, it } from 'vitest';
import { drawSecretTag } from '../../src/runner/envelope.ts';

it('draws 22 base64url characters a tag, each tag new, across refills of the pool', () => {
  const tags = Array.from({ length: 1000 }, drawSecretTag);
  for (const tag of tags) expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(new Set(tags).size).toBe(tags.length);
});
