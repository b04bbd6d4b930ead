// Module bytes stored under their sha256. The filesystem under DATA_DIR/modules is the default; an
// S3-compatible store (s3-module-storage.ts) sits behind the same interface.
import fs from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../module/index.ts';

export interface ModuleStorage {
  /** Stores the bytes under their hash (idempotent) and answers it. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes stored under that hash, or null when there are none; a failing store throws. */
  get(sha256: string): Promise<Uint8Array | null>;
  /** Releases what the store holds open (the S3 client's connections); absent when nothing is. */
  close?(): void;
}

const SHA256 = /^[0-9a-f]{64}$/;

export class FilesystemModuleStorage implements ModuleStorage {
  constructor(private readonly dir: string) {}

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    await fs.mkdir(this.dir, { recursive: true });
    const final = path.join(this.dir, `${sha256}.wasm`);
    const partial = `${final}.${process.pid}.${Date.now()}.part`;
    await fs.writeFile(partial, bytes);
    await fs.rename(partial, final); // atomic: a reader never sees half a module, and two writers of one hash write the same bytes
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!SHA256.test(sha256)) return null;
    try {
      return new Uint8Array(await fs.readFile(path.join(this.dir, `${sha256}.wasm`)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
