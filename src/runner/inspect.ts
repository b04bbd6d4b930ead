// Inspection of an upload: the static checks of src/module, then the manifest export run in a fresh
// instance with a 5 s deadline and every host function refusing, then the strict manifest parse and the
// export check. A module the platform refuses is a verdict (accepted false), not a runner failure.
import { checkExports, inspectModuleBytes } from '../module/inspect.ts';
import { type Manifest, parseManifest } from '../module/manifest.ts';
import { capMemory, PAGES_PER_MIB, readModule, sha256Hex } from '../module/wasm.ts';
import { readAnswer } from './envelope.ts';
import { RunnerFailure } from './errors.ts';
import { REFUSING_BINDING } from './host/refusal.ts';
import { Redactor } from './redaction.ts';
import { type SandboxPool, withSandbox } from './threads/sandbox-pool.ts';

export const MANIFEST_DEADLINE_MS = 5_000;
/** Before the manifest names memoryMiB, the manifest export runs under the largest cap a manifest may ask. */
const INSPECTION_MAX_MIB = 256;

export type InspectionVerdict =
  | { accepted: true; manifest: Manifest; sha256: string; sizeBytes: number }
  | { accepted: false; code: string; message: string; path?: string };

/**
 * sandbox: the threads the manifest export runs on (the runner's own); without one (a command's check),
 * a thread is started for this inspection and ended after it.
 */
export async function inspectUpload(
  bytes: Uint8Array,
  sandbox?: Pick<SandboxPool, 'run'>,
): Promise<InspectionVerdict> {
  if (!sandbox) return withSandbox((oneOff) => inspectUpload(bytes, oneOff));
  const inspected = inspectModuleBytes(bytes);
  if (!inspected.ok) return { accepted: false, code: inspected.code, message: inspected.message };
  const capped = capMemory(bytes, INSPECTION_MAX_MIB);
  if (!capped.ok) return { accepted: false, code: capped.code, message: capped.message };

  const answer = await runManifestExport(capped.bytes, sandbox);
  if ('refused' in answer) return { accepted: false, code: 'invalid_module', message: answer.refused };
  const parsed = parseManifest(answer.manifest);
  if (!parsed.ok) return { accepted: false, code: parsed.code, message: parsed.message, path: parsed.path };
  const missing = checkExports(parsed.manifest, inspected.exports);
  if (missing) return { accepted: false, code: missing.code, message: missing.message };

  const final = capMemory(bytes, parsed.manifest.memoryMiB);
  if (!final.ok) return { accepted: false, code: final.code, message: final.message };
  return {
    accepted: true,
    manifest: parsed.manifest,
    sha256: sha256Hex(final.bytes),
    sizeBytes: final.bytes.byteLength,
  };
}

async function runManifestExport(
  bytes: Uint8Array,
  sandbox: Pick<SandboxPool, 'run'>,
): Promise<{ manifest: unknown } | { refused: string }> {
  const facts = readModule(bytes);
  const maxPages =
    'memories' in facts ? (facts.memories[0]?.maxPages ?? INSPECTION_MAX_MIB * PAGES_PER_MIB) : 0;
  const module = { sha256: sha256Hex(bytes), module: await WebAssembly.compile(bytes), maxPages };
  const { result } = await sandbox.run(module, {
    exportName: 'manifest',
    input: '',
    deadlineMs: MANIFEST_DEADLINE_MS,
    binding: REFUSING_BINDING,
    transient: true,
  });
  if (result.kind === 'start_failed') return { refused: `the module did not start: ${result.message}` };
  if (result.kind === 'timeout') return { refused: 'the manifest export did not answer within 5 s' };
  if (result.kind === 'trapped')
    return { refused: `the manifest export trapped: ${result.message}`.slice(0, 500) };
  try {
    return { manifest: readAnswer('manifest', result.output, new Redactor()) };
  } catch (error) {
    if (error instanceof RunnerFailure) return { refused: `manifest: ${error.message}` };
    throw error;
  }
}
