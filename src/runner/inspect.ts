// Inspection of an upload: the static checks of src/module on the bytes, one compile off the main thread
// (the engine's validation, and the module the manifest export then runs on), the manifest export run in
// a fresh instance with a 5 s deadline and every host function refusing, then the strict manifest parse
// and the export check. A module the platform refuses is a verdict (accepted false), not a runner failure.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { secondsText } from '../config/start-limit.ts';
import {
  capMemory,
  checkExports,
  checkModuleBytes,
  compileModule,
  type Manifest,
  PAGES_PER_MIB,
  parseManifest,
  sha256Hex,
} from '../module/index.ts';
import { REFUSING_BINDING } from './host/refusal.ts';
import type { ThreadModule } from './threads/protocol.ts';
import { type SandboxPool, withSandbox } from './threads/sandbox-pool.ts';
import { readingWithoutSecrets } from './threads/thread-call.ts';

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
  sandbox?: Pick<SandboxPool, 'run' | 'startLimitMs'>,
): Promise<InspectionVerdict> {
  if (!sandbox) return withSandbox((oneOff) => inspectUpload(bytes, oneOff));
  const inspected = checkModuleBytes(bytes);
  if (!inspected.ok) return { accepted: false, code: inspected.code, message: inspected.message };
  // The checks and the cap each read the whole module: apart, the event loop runs between them.
  await nextTurn();
  const capped = capMemory(bytes, INSPECTION_MAX_MIB);
  if (!capped.ok) return { accepted: false, code: capped.code, message: capped.message };
  // Capping changes only the memory's maximum, so the engine's verdict on the capped bytes is its verdict
  // on the upload; the one compile also gives the module the manifest export runs on.
  const compiled = await compileModule(capped.bytes);
  if (!compiled.ok) return { accepted: false, code: compiled.code, message: compiled.message };

  const answer = await runManifestExport(
    {
      sha256: sha256Hex(capped.bytes),
      module: compiled.module,
      maxPages: INSPECTION_MAX_MIB * PAGES_PER_MIB,
    },
    sandbox,
  );
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
  module: ThreadModule,
  sandbox: Pick<SandboxPool, 'run' | 'startLimitMs'>,
): Promise<{ manifest: unknown } | { refused: string }> {
  const { result } = await sandbox.run(module, {
    exportName: 'manifest',
    input: '',
    deadlineMs: sandbox.startLimitMs,
    binding: REFUSING_BINDING,
    reading: readingWithoutSecrets('manifest'),
    transient: true,
  });
  if (result.kind === 'start_failed') return { refused: `the module did not start: ${result.message}` };
  if (result.kind === 'timeout')
    return {
      refused: `the manifest export did not answer within ${secondsText(sandbox.startLimitMs)}`,
    };
  if (result.kind === 'trapped')
    return { refused: `the manifest export trapped: ${result.message}`.slice(0, 500) };
  if (result.kind === 'bad_output') return { refused: `manifest: ${result.message}` };
  // Read on the thread: JSON of 1 MiB at most, nested 64 levels at most.
  return { manifest: JSON.parse(result.answer) };
}
