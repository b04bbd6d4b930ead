// The module `ops platform publish` takes (docs/operations.md "ops platform publish"): a module file, an
// app directory, or `-` for standard input; then checked exactly as an upload is (inspectUpload: the
// static checks, the manifest export in a sandbox, the strict manifest parse, the exports) and held to
// carry the memory maximum its manifest names, as the release build writes it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_OPTIMIZE_LEVEL, upToDateBuild } from '../app-cli/build-stamp.ts';
import type { PlatformModule } from '../catalogue/platform-versions.ts';
import { ApiError } from '../http/errors.ts';
import { MAX_MODULE_BYTES, sha256Hex } from '../module/index.ts';
import { inspectUpload } from '../runner/index.ts';
import { OpsFailure, type OpsIO, OpsUsageError } from './runtime.ts';

/** The entry file that makes a directory an app directory (as `app new` writes and `app build` compiles). */
const APP_ENTRY = 'assembly/index.ts';

const tooLarge = (size: number) =>
  new ApiError('payload_too_large', `the module is ${size} bytes; at most ${MAX_MODULE_BYTES} are accepted`);

/** Standard input to its end, refused past 32 MiB. */
async function readStdin(io: OpsIO): Promise<Uint8Array> {
  if (!io.stdin) throw new OpsUsageError('-: no standard input to read the module from');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_MODULE_BYTES) throw tooLarge(size);
    chunks.push(buffer);
  }
  if (size === 0) throw new OpsUsageError('-: standard input was empty (pipe the module in)');
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * The module of an app directory: the one `app build <dir>` last wrote there when it is up to date
 * (its build stamp), else built now as the release build builds each app (compiled, checked as an
 * upload, capped; written to <dir>/build as `app build` writes it).
 */
async function builtModule(dir: string, io: OpsIO): Promise<Uint8Array> {
  try {
    await fs.access(path.join(dir, APP_ENTRY));
  } catch {
    throw new OpsUsageError(`${dir} is not an app directory: it has no ${APP_ENTRY}`);
  }
  const built = await upToDateBuild(dir, DEFAULT_OPTIMIZE_LEVEL);
  if (built) return new Uint8Array(await fs.readFile(built.path));
  let compile: typeof import('../app-cli/compile.ts');
  try {
    compile = await import('../app-cli/compile.ts');
  } catch {
    throw new OpsFailure(
      'build_unavailable',
      `${dir} has no up-to-date build and this installation cannot compile apps: run app build ${dir} first, or give the module file`,
    );
  }
  try {
    const progress = (line: string) => io.stderr.write(`${line}\n`);
    const app = await compile.buildApp(dir, undefined, { progress });
    return new Uint8Array(await fs.readFile(app.path));
  } catch (error) {
    if (error instanceof compile.AppBuildError)
      throw new ApiError('validation_error', error.message, {
        code: error.code,
        issues: [
          { path: error.manifestPath ? `manifest.${error.manifestPath}` : '/', message: error.message },
        ],
      });
    throw error;
  }
}

/** The module's bytes as the argument names them: `-` (standard input), a file, or an app directory. */
export async function readModuleArgument(argument: string, io: OpsIO): Promise<Uint8Array> {
  if (argument === '-') return readStdin(io);
  const stat = await fs.stat(argument).catch(() => null);
  if (!stat) throw new OpsUsageError(`${argument}: no such file or directory`);
  if (stat.isDirectory()) return builtModule(argument, io);
  if (!stat.isFile()) throw new OpsUsageError(`${argument} is not a file or a directory`);
  if (stat.size > MAX_MODULE_BYTES) throw tooLarge(stat.size);
  return new Uint8Array(await fs.readFile(argument));
}

/**
 * The module checked as an upload is, then held to carry its manifest's memory maximum: the bytes must
 * be the ones the cap writes (the hash inspection names), so the hash the operator has is the stored one.
 */
export async function inspectPlatformModule(bytes: Uint8Array): Promise<PlatformModule> {
  const verdict = await inspectUpload(bytes);
  if (!verdict.accepted) {
    if (verdict.code === 'too_large') throw new ApiError('payload_too_large', verdict.message);
    throw new ApiError('validation_error', verdict.message, {
      code: verdict.code,
      issues: [{ path: verdict.path ? `manifest.${verdict.path}` : '/', message: verdict.message }],
    });
  }
  if (sha256Hex(bytes) !== verdict.sha256) {
    const message = `the module does not carry the memory maximum its manifest names (memoryMiB ${verdict.manifest.memoryMiB}): publish the module app build writes`;
    throw new ApiError('validation_error', message, {
      code: 'memory_not_capped',
      issues: [{ path: '/', message }],
    });
  }
  return { bytes, manifest: verdict.manifest, sha256: verdict.sha256, sizeBytes: verdict.sizeBytes };
}
