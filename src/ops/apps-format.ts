// How `ops apps` summarises a version's parts in one table cell (docs/operations.md "ops apps …"). Pure:
// the text comes back raw, and the table escapes it (output.ts cellText) like every cell.

/** Installs named in a cell before the rest are counted. */
export const INSTALLS_NAMED = 3;

/** `2: acme/kyc, beta/screening`, the first three named and the rest counted; `-` for none. */
export function installsSummary(installs: readonly { tenant: string; name: string }[]): string {
  if (installs.length === 0) return '-';
  const named = installs.slice(0, INSTALLS_NAMED).map((i) => `${i.tenant}/${i.name}`);
  const more = installs.length - named.length;
  return `${installs.length}: ${named.join(', ')}${more > 0 ? ` +${more} more` : ''}`;
}

/** The publisher: `platform` (with its source when known), or the tenant's name. */
export function publisherText(version: {
  publisher: 'platform' | 'tenant';
  platformSource: string | null;
  tenant: string | null;
}): string {
  if (version.publisher === 'tenant') return version.tenant ?? '?';
  return version.platformSource ? `platform (${version.platformSource})` : 'platform';
}

/** The latest review: its status and who decided, or `-`. */
export function reviewText(review: { status: string; decidedBy: string | null } | null): string {
  if (!review) return '-';
  return review.decidedBy ? `${review.status} by ${review.decidedBy}` : review.status;
}

/** The block stopping a version: its scope and reason, or `-`. */
export function blockText(block: { scope: string; reason: string } | null): string {
  return block ? `${block.scope}: ${block.reason}` : '-';
}

/** Provenance: `-` when none, else its kind, signer and trust. */
export function provenanceText(
  provenance: { kind: string; trusted: boolean } | null,
  signer: string | null,
): string {
  if (!provenance) return '-';
  return `${provenance.kind} ${signer ?? '?'} (${provenance.trusted ? 'trusted' : 'untrusted'})`;
}

/** A block's target: the module's hash, or the publisher's app. */
export function blockTarget(block: {
  sha256: string | null;
  publisher: string | null;
  tenant: string | null;
  appName: string | null;
}): string {
  if (block.sha256) return block.sha256;
  return `${block.publisher === 'platform' ? 'platform' : (block.tenant ?? '?')}/${block.appName}`;
}

/** `1 install`, `2 installs`. */
export const installsCount = (n: number): string => `${n} install${n === 1 ? '' : 's'}`;
