// What the apps pages say of a version, its provenance, a publish's answer and an upload's refusal. Pure:
// the pages render these strings as text.
import { ApiFailure } from '../../api/errors.ts';
import type { paths } from '../../api/schema.ts';

type AppAnswer = paths['/apps/{name}']['get']['responses'][200]['content']['application/json'];
/** One app of the catalogue (GET /apps). */
export type AppEntry =
  paths['/apps']['get']['responses'][200]['content']['application/json']['items'][number];
/** One publish request (GET /apps/approvals). */
export type PublishRequest =
  paths['/apps/approvals']['get']['responses'][200]['content']['application/json']['items'][number];
/** One version as the catalogue's reads answer it (the manifest unfolded, provenance, block, review). */
export type AppVersion = AppAnswer['items'][number];
export type Provenance = NonNullable<AppVersion['provenance']>;
type PublishAnswer = paths['/apps/{name}/versions/{id}/publish']['post']['responses'];
export type PublishResult =
  | PublishAnswer[200]['content']['application/json']
  | PublishAnswer[202]['content']['application/json'];

/** Who signed, in words: a keyless certificate's identity and issuer, a key's id, or the release. */
export function signerText(signer: Provenance['signer']): string {
  switch (signer.kind) {
    case 'keyless':
      return `${signer.identity} (issued by ${signer.issuer})`;
    case 'key':
      return `the key ${signer.keyId}`;
    case 'release':
      return "the platform's release";
  }
}

const KIND_TEXT: Record<Provenance['kind'], string> = {
  signature: 'a signature over the module',
  attestation: 'an attestation naming the module',
  release: "the platform's release catalogue",
};

/** The one-line verdict on a version's provenance: whether it is trusted, and by whom it was signed. */
export function provenanceVerdict(provenance: AppVersion['provenance']): string {
  if (provenance === null) return 'Not signed: no provenance was attached to this version.';
  const by = signerText(provenance.signer);
  if (provenance.kind === 'release') return "Trusted: shipped with the platform's release catalogue.";
  if (provenance.trusted) {
    const as = provenance.trustedSigner ? ` as ${provenance.trustedSigner}` : '';
    return `Trusted${as}: ${KIND_TEXT[provenance.kind]} by ${by}.`;
  }
  return `Not trusted: ${KIND_TEXT[provenance.kind]} by ${by}, whom this deployment's trusted signers do not name.`;
}

/** What a version's status means to a reader. */
export const STATUS_TEXT: Record<AppVersion['status'], string> = {
  uploaded: 'uploaded, not published',
  published: 'published',
  withdrawn: 'withdrawn',
};

/** What a publish did: published at once, waiting for the tenant's approval, or for the operator's review. */
export function publishOutcome(result: PublishResult): string {
  const { version } = result;
  const what = `${version.name} ${version.version}`;
  if ('approval' in result && result.approval)
    return `${what} waits for approval: another administrator approves or rejects it under Publish requests.`;
  if ('review' in result && result.review)
    return `${what} waits for the operator's review before it is published.`;
  return `${what} is published.`;
}

/** What a decision on a publish request did (the approve answer names a review when the operator's follows). */
export function decisionOutcome(
  decision: 'approve' | 'reject',
  result: { version: { name: string; version: string }; review?: unknown },
): string {
  const what = `${result.version.name} ${result.version.version}`;
  if (decision === 'reject') return `${what} was rejected; it stays uploaded and may be published again.`;
  return result.review
    ? `${what} was approved; it now waits for the operator's review.`
    : `${what} was approved and is published.`;
}

/**
 * Where an upload's refusal points, when it points somewhere: `manifest.<path>` for a manifest the platform
 * refused (details.issues[0].path); null for a refusal of the whole module ("/") or another failure.
 */
export function uploadProblemPath(error: unknown): string | null {
  if (!(error instanceof ApiFailure) || error.code !== 'validation_error') return null;
  const issues = error.details?.issues;
  const path = Array.isArray(issues) ? (issues[0] as { path?: unknown } | undefined)?.path : undefined;
  return typeof path === 'string' && path !== '/' && path !== '' ? path : null;
}

/** What a module refusal's code means (details.code of an upload's validation_error: docs/catalogue.md). */
const MODULE_REFUSAL: Record<string, string> = {
  not_wasm: 'The file is not a WebAssembly module',
  invalid_module: 'The module is not one the platform runs',
  forbidden_import: 'The module imports something the platform does not provide',
  imported_memory: 'The module imports its memory instead of defining it',
  missing_export: 'The module lacks an export the platform calls',
  table_too_large: "The module's table is larger than the platform allows",
  instance_too_large: "The module's instance is larger than the platform allows",
};

/** The lead of an upload's refusal of the module, or null when the refusal is another failure. */
export function uploadRefusalLead(error: unknown): string | null {
  if (!(error instanceof ApiFailure) || error.code !== 'validation_error') return null;
  const code = error.details?.code;
  return typeof code === 'string' ? (MODULE_REFUSAL[code] ?? null) : null;
}

/** A JSON value as indented text for a <pre>. */
export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2);

/** A duration in milliseconds as a reader says it: "800 ms", "30 s", "2 min". */
export function durationText(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}

/** A list as text ("none" when empty). */
export const listText = (items: readonly string[]): string => (items.length ? items.join(', ') : 'none');

/** A decision's comment kept as the API takes it: trimmed, absent when blank. */
export function commentBody(comment: string): { comment?: string } {
  const trimmed = comment.trim();
  return trimmed ? { comment: trimmed } : {};
}

/** The console's page of an app, and of one of its versions. */
export const appPath = (name: string) => `/apps/${encodeURIComponent(name)}`;
export const versionPath = (name: string, id: string) =>
  `${appPath(name)}/versions/${encodeURIComponent(id)}`;
/** The install page (the installs area's) of an install, by name. */
export const installPath = (name: string) => `/apps/installs/${encodeURIComponent(name)}`;
/** The installs page's "Install an app" form with `app` chosen (its `?install=` parameter). */
export const installAppPath = (app: string) => `/apps/installs?install=${encodeURIComponent(app)}`;

/** A tenant-written address as a link's href only when it is http(s); anything else stays text. */
export function webHref(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
