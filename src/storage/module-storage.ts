// Module bytes stored under their sha256. The filesystem under DATA_DIR/modules is the default; an
// S3-compatible store (s3-module-storage.ts) sits behind the same interface.
import { sha256Hex } from '../module/index.ts';
import { FilesystemObjects } from './objects.ts';

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
  private readonly files: FilesystemObjects;

  constructor(dir: string) {
    this.files = new FilesystemObjects(dir);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    // Written every time (renamed into place): the runner's cache replaces a damaged copy this way, and
    // two writers of one hash write the same bytes.
    await this.files.put(`${sha256}.wasm`, bytes);
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!SHA256.test(sha256)) return null;
    return this.files.get(`${sha256}.wasm`);
  }
}
