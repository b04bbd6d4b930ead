// What an install's state lets its calls do beyond its hosts (what a change's needsAdded and handlesAdded
// name): read the tenant's documents, receive vendor webhooks, hand off
// applicants. Pure: a manifest and a config in, answers out. A "state" is a version's manifest with the
// config an install holds (or a save asks for) under it.
import { type Manifest, type Need, pointerTokens } from '../module/index.ts';
import { valueAt } from './config-pointers.ts';

export type Handle = 'webhook' | 'handoff';

/** What of a manifest these rules read. */
export type CapabilityManifest = Pick<Manifest, 'needs' | 'documentsFromConfig' | 'handles'>;

export interface InstallState {
  manifest: CapabilityManifest;
  config: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether calls of an install in this state may read documents: the version declares needs documents
 * and, when it names a documentsFromConfig switch, the config holds exactly true there.
 */
export function readsDocuments(
  manifest: Pick<Manifest, 'needs' | 'documentsFromConfig'>,
  config: unknown,
): boolean {
  if (!manifest.needs.includes('documents')) return false;
  if (manifest.documentsFromConfig === undefined) return true;
  return valueAt(config, manifest.documentsFromConfig) === true;
}

/** Whether a config value is a webhook external id source: { json } | { header } | { query }, non-empty. */
function isExternalIdSource(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return ['json', 'header', 'query'].some((key) => typeof value[key] === 'string' && value[key] !== '');
}

/**
 * Whether an install in this state receives vendor webhooks: the version handles them and, when it reads
 * the external id source from config (webhookExternalIdFromConfig), the config holds one there.
 */
export function receivesWebhooks(manifest: Pick<Manifest, 'handles'>, config: unknown): boolean {
  if (!manifest.handles.webhook) return false;
  const pointer = manifest.handles.webhookExternalIdFromConfig;
  return pointer === undefined || isExternalIdSource(valueAt(config, pointer));
}

/** [documents] when the asked state reads documents and the current one (none for a new install) does not. */
export function needsAdded(current: InstallState | null, asked: InstallState): Need[] {
  const before = current !== null && readsDocuments(current.manifest, current.config);
  return readsDocuments(asked.manifest, asked.config) && !before ? ['documents'] : [];
}

/**
 * The handlers the asked state adds: webhook when it receives webhooks and the current state does not,
 * handoff when its version hands off and the current one does not. A new install (current null) adds all
 * it has.
 */
export function handlesAdded(current: InstallState | null, asked: InstallState): Handle[] {
  const added: Handle[] = [];
  const webhookBefore = current !== null && receivesWebhooks(current.manifest, current.config);
  if (receivesWebhooks(asked.manifest, asked.config) && !webhookBefore) added.push('webhook');
  const handoffBefore = current?.manifest.handles.handoff === true;
  if (asked.manifest.handles.handoff && !handoffBefore) added.push('handoff');
  return added;
}

/** How reading documents moves from one state to the next (null state: no install, or one still waiting). */
export function documentsMove(
  before: InstallState | null,
  after: InstallState | null,
): 'enabled' | 'disabled' | null {
  const was = before !== null && readsDocuments(before.manifest, before.config);
  const is = after !== null && readsDocuments(after.manifest, after.config);
  if (was === is) return null;
  return is ? 'enabled' : 'disabled';
}

/**
 * The config with its documents switch (documentsFromConfig) turned off, or null when the version has no
 * switch or the config does not hold true there: a version that reads documents unconditionally can only
 * stop with another version.
 */
export function withDocumentsOff(
  manifest: Pick<Manifest, 'documentsFromConfig'>,
  config: Record<string, unknown>,
): Record<string, unknown> | null {
  const pointer = manifest.documentsFromConfig;
  if (pointer === undefined || valueAt(config, pointer) !== true) return null;
  const copy = structuredClone(config);
  const tokens = pointerTokens(pointer);
  const last = tokens.pop() as string;
  // valueAt found true there, so every step of the path exists in the copy.
  let node: unknown = copy;
  for (const token of tokens)
    node = (node as Record<string, unknown>)[Array.isArray(node) ? Number(token) : token];
  if (Array.isArray(node)) node[Number(last)] = false;
  else (node as Record<string, unknown>)[last] = false;
  return copy;
}
