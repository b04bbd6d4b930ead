// The gate of APP_SIGNATURES (src/provenance/gate-rules.ts), as a table.

import { describe, expect, it } from 'vitest';
import { provenanceRefusal } from '../../src/provenance/gate-rules.ts';

describe('provenanceRefusal', () => {
  const trusted = { trusted: true, signer: 'ci' };
  const untrusted = { trusted: false, signer: 'x' };
  it.each([
    ['off', 'tenant', null, null],
    ['optional', 'tenant', null, null],
    ['required', 'tenant', null, 'unsigned'],
    ['required', 'tenant', untrusted, 'untrusted'],
    ['required', 'tenant', trusted, null],
    ['required', 'platform', null, null],
    ['optional', 'tenant', untrusted, null],
  ] as const)('%s, a %s version with %j: %s', (signatures, publisher, provenance, refusal) =>
    expect(provenanceRefusal(signatures, { publisher, provenance })).toBe(refusal));
});
