// Module bytes in an S3-compatible bucket under `<prefix><sha256>.wasm` (objects in s3-objects.ts).
// Downloads are hashed again here, so a damaged or substituted object is never served.
import { createHash } from 'node:crypto';
import type { ModuleStorage } from './module-storage.ts';
import { S3Objects, type S3StorageSettings } from './s3-objects.ts';

const SHA256 = /^[0-9a-f]{64}$/;

export class S3ModuleStorage implements ModuleStorage {
  private readonly objects: S3Objects;

  constructor(private readonly settings: S3StorageSettings) {
    this.objects = new S3Objects(settings, settings.prefix, 'module storage');
  }

  /** The object key of a module. */
  key(sha256: string): string {
    return this.objects.keyOf(`${sha256}.wasm`);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const name = `${sha256}.wasm`;
    // Content-addressed: an object already there under this key holds these bytes (the store checked
    // their checksum when they were written), so a second put sends nothing.
    if ((await this.objects.size(name)) === bytes.byteLength) return sha256;
    await this.objects.put(name, bytes, { contentType: 'application/wasm' });
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!SHA256.test(sha256)) return null;
    const bytes = await this.objects.get(`${sha256}.wasm`);
    if (bytes && createHash('sha256').update(bytes).digest('hex') !== sha256) {
      throw new Error(
        `module storage: object ${this.key(sha256)} in bucket ${this.settings.bucket} does not match its hash`,
      );
    }
    return bytes;
  }

  /** Closes the client's connections. */
  close(): void {
    this.objects.close();
  }
}
