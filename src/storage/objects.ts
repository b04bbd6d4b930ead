// Bytes kept under a key in the deployment's object storage: the filesystem under DATA_DIR (one file per
// key) or an S3-compatible bucket (s3-objects.ts). Module storage (content-addressed) and document
// storage (keyed by tenant and document) are both built on it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../atomic-file.ts';

export interface ObjectStore {
  /** Stores the bytes under the key, replacing what was there; a reader never sees half of them. */
  put(key: string, bytes: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /** The bytes under the key, or null when there are none; a failing store throws. */
  get(key: string): Promise<Uint8Array | null>;
  /** Where a key's object is, for error messages (a file's path, or the key and bucket). */
  where(key: string): string;
  /** Releases what the store holds open (the S3 client's connections); absent when nothing is. */
  close?(): void;
}

/**
 * Keys are `/`-separated segments of letters, digits, `.`, `_` and `-` (never `.` or `..`): they are
 * made by the platform from hashes and ids, and a key can never name a file outside the store's folder.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

export function isObjectKey(key: string): boolean {
  return key.split('/').every((segment) => SEGMENT.test(segment) && segment !== '..');
}

/**
 * Objects are the platform's alone (subjects' documents, tenants' modules), whatever the umask: the store's
 * folders are made 0700 and its files 0600, as secrets.json beside them. Folders above the store (DATA_DIR
 * itself) keep the default mode, since PostgreSQL's own user may need to pass through them.
 */
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

export class FilesystemObjects implements ObjectStore {
  constructor(private readonly dir: string) {}

  where(key: string): string {
    return `file ${this.pathOf(key)}`;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const final = this.pathOf(key);
    await fs.mkdir(path.dirname(this.dir), { recursive: true });
    await fs.mkdir(path.dirname(final), { recursive: true, mode: FOLDER_MODE });
    // Private from its first byte; atomic: a reader never sees half an object.
    await writeFileAtomically(final, bytes, FILE_MODE);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.pathOf(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  private pathOf(key: string): string {
    if (!isObjectKey(key)) throw new Error(`object storage: "${key}" is not an object key`);
    return path.join(this.dir, ...key.split('/'));
  }
}
