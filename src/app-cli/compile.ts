// Compiling an app (<dir>/assembly/index.ts) with the AssemblyScript compiler, and building it: the
// module checked by inspectUpload, exactly as an upload is, then written capped at its memoryMiB.
//
// `@apps-platform/app-sdk` resolves to packages/app-sdk/assembly wherever the app lives: the compiler
// looks packages up in node_modules folders (then in --path), and reads through a hook here that serves
// any .../node_modules/@apps-platform/app-sdk/<file> from the SDK. The SDK's own import of
// @extism/as-pdk resolves through this repository's node_modules, given as --path.
import fs from 'node:fs/promises';
import path from 'node:path';
import asc from 'assemblyscript/asc';
import { capMemory, type Manifest, sha256Hex } from '../module/index.ts';
import { inspectUpload } from '../runner/index.ts';
import { DEFAULT_OPTIMIZE_LEVEL, sha256Of, toolchainHash, writeStamp } from './build-stamp.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
/** The SDK's AssemblyScript sources. */
export const SDK_DIR = path.join(REPO, 'packages/app-sdk/assembly');
export const SDK_PACKAGE = '@apps-platform/app-sdk';
const SDK_REQUEST = new RegExp(
  `[\\\\/]node_modules[\\\\/]${SDK_PACKAGE.replace('/', '[\\\\/]')}[\\\\/](.+)$`,
);
/** The entry file of an app, relative to its directory. */
export const APP_ENTRY = 'assembly/index.ts';

/** The app could not be built: a compile error, or the module the platform would refuse. */
export class AppBuildError extends Error {
  constructor(
    message: string,
    /** invalid_module, forbidden_import, missing_export... of the upload's refusals, or compile_error. */
    readonly code: string,
    /** The manifest path at fault, when there is one. */
    readonly manifestPath?: string,
    /** Compiler diagnostics, several lines, for a compile error. */
    readonly details?: string,
  ) {
    super(message);
  }
}

export interface CompileOptions {
  /** Binaryen's optimize level, 0 to 3 (default 3; 0 builds in a second, for quick checks). */
  optimizeLevel?: number;
  /** Told each step of a build as it starts (compiling takes 15 to 25 s at level 3 on an idle machine). */
  progress?: (line: string) => void;
}

export interface CompileResult {
  bytes: Uint8Array;
  /** Compiler warnings, if any. */
  warnings: string;
  /** Every file the compiler asked for (absolute path): its sha256, or null when there was none. */
  sources: Map<string, string | null>;
}

/** The compiler keeps state between runs in one process (its library files): one compile at a time. */
let compiling: Promise<unknown> = Promise.resolve();

/** Compiles <dir>/assembly/index.ts; throws AppBuildError (code compile_error) with the diagnostics. */
export function compileAppWithWarnings(dir: string, options: CompileOptions = {}): Promise<CompileResult> {
  const run = compiling.then(() => compileOnce(dir, options));
  compiling = run.catch(() => {});
  return run;
}

async function compileOnce(dir: string, options: CompileOptions): Promise<CompileResult> {
  const baseDir = path.resolve(dir);
  const entry = path.join(baseDir, APP_ENTRY);
  try {
    await fs.access(entry);
  } catch {
    throw new AppBuildError(`${path.join(dir, APP_ENTRY)} does not exist`, 'compile_error');
  }
  let binary: Uint8Array | undefined;
  const sources = new Map<string, string | null>();
  const { error, stderr } = await asc.main(
    [
      APP_ENTRY,
      '--baseDir',
      baseDir,
      '--outFile',
      'module.wasm',
      '--path',
      path.join(REPO, 'node_modules'),
      '--optimizeLevel',
      String(options.optimizeLevel ?? DEFAULT_OPTIMIZE_LEVEL),
      // Never above 0: shrinking makes the incremental collector's hot paths some 200 times slower.
      '--shrinkLevel',
      '0',
      '--runtime',
      'incremental',
      // The SDK's abort handler, loaded whatever the app imports: it traps instead of importing env.abort.
      '--lib',
      path.join(SDK_DIR, 'abort.ts'),
      '--use',
      'abort=abortToTrap',
      // Room for deeply nested JSON.
      '--stackSize',
      '262144',
      '--noColors',
    ],
    {
      readFile: async (name: string, from: string) => {
        const file = path.resolve(from, name);
        // The platform's options decide the build, not an asconfig.json of the app's.
        if (file === path.join(baseDir, 'asconfig.json')) return null;
        const sdk = SDK_REQUEST.exec(file);
        const real = sdk ? path.join(SDK_DIR, sdk[1] as string) : file;
        const text = await fs.readFile(real, 'utf8').catch(() => null);
        sources.set(real, text === null ? null : sha256Of(text));
        return text;
      },
      writeFile: async (name: string, contents: Uint8Array | string) => {
        if (name === 'module.wasm' && typeof contents !== 'string') binary = contents;
      },
      listFiles: async () => [],
    },
  );
  const diagnostics = stderr.toString().trim();
  if (error || !binary) {
    throw new AppBuildError(
      `${path.join(dir, APP_ENTRY)} does not compile: ${error?.message ?? 'no module was written'}`,
      'compile_error',
      undefined,
      diagnostics,
    );
  }
  return { bytes: binary, warnings: diagnostics, sources };
}

/** The app's module as compiled, before the platform's checks and memory cap. */
export async function compileApp(dir: string, options: CompileOptions = {}): Promise<Uint8Array> {
  return (await compileAppWithWarnings(dir, options)).bytes;
}

export interface BuiltApp {
  /** Where the capped module was written. */
  path: string;
  /** sha256 of the written (capped) module: the hash an upload of it is stored under. */
  sha256: string;
  manifest: Manifest;
  sizeBytes: number;
  warnings: string;
}

const EXPORT_FLAGS: Record<string, string> = {
  handle_webhook: 'handles.webhook',
  handoff: 'handles.handoff',
};

/** A refusal's one line, naming the manifest path at fault when the check itself does not. */
function refusalLine(code: string, message: string): { line: string; manifestPath?: string } {
  if (code === 'missing_export') {
    const names = /does not export the functions? ([a-z_, ]+)/.exec(message)?.[1]?.split(', ') ?? [];
    const flag = names.map((name) => EXPORT_FLAGS[name]).find((f) => f !== undefined);
    if (flag) return { line: `manifest: ${flag}: is true, but ${message}`, manifestPath: flag };
  }
  if (code === 'forbidden_import' && message.includes('"env.')) {
    return {
      line:
        `${message} (AssemblyScript imports from env for trace(), Math.random, Date and its default abort; ` +
        'app build compiles in the SDK abort handler, and apps must not use the others)',
    };
  }
  return { line: message };
}

/**
 * Compiles the app, checks the module with inspectUpload (the upload's own check: imports, the manifest
 * export run in a sandbox and parsed strictly, the exports it promises, the memory cap) and writes the
 * capped module to out (default <dir>/build/<name>-<version>.wasm). A refusal throws AppBuildError and
 * writes nothing.
 */
export async function buildApp(dir: string, out?: string, options: CompileOptions = {}): Promise<BuiltApp> {
  const level = options.optimizeLevel ?? DEFAULT_OPTIMIZE_LEVEL;
  options.progress?.(
    `compiling ${path.join(dir, APP_ENTRY)} (AssemblyScript, optimize level ${level}${level > 0 ? ': about 20 s, longer on a busy machine' : ''})`,
  );
  const { bytes, warnings, sources } = await compileAppWithWarnings(dir, options);
  options.progress?.('checking the module as an upload is checked (imports, manifest, exports, memory)');
  const verdict = await inspectUpload(bytes);
  if (!verdict.accepted) {
    const { line, manifestPath } = refusalLine(verdict.code, verdict.message);
    throw new AppBuildError(line, verdict.code, verdict.path ?? manifestPath);
  }
  const capped = capMemory(bytes, verdict.manifest.memoryMiB);
  if (!capped.ok) throw new AppBuildError(capped.message, capped.code);
  const sha256 = sha256Hex(capped.bytes);
  if (sha256 !== verdict.sha256) throw new Error('the capped module is not the one inspection accepted');
  const target = path.resolve(
    out ?? path.join(dir, 'build', `${verdict.manifest.name}-${verdict.manifest.version}.wasm`),
  );
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, capped.bytes);
  // Only the default build is reused by `app test`; one written elsewhere (--out) leaves the app dir alone.
  if (out === undefined) await stampBuild(dir, target, sha256, sources, level);
  return { path: target, sha256, manifest: verdict.manifest, sizeBytes: capped.bytes.byteLength, warnings };
}

/** Records what the build was made from (build-stamp.ts), paths inside the app relative to it. */
async function stampBuild(
  dir: string,
  target: string,
  sha256: string,
  sources: Map<string, string | null>,
  optimizeLevel: number,
) {
  const base = path.resolve(dir);
  const named = (file: string) => {
    const relative = path.relative(base, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  await writeStamp(dir, {
    module: named(target),
    sha256,
    sources: Object.fromEntries([...sources].map(([file, hash]) => [named(file), hash])),
    toolchain: await toolchainHash(),
    optimizeLevel,
  });
}
