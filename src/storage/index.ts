// The module store a deployment's settings name: the filesystem under DATA_DIR/modules, an
// S3-compatible bucket, or none (MODULE_STORAGE=off).
import type { Config } from '../config.ts';
import { FilesystemModuleStorage, type ModuleStorage } from './module-storage.ts';
import { S3ModuleStorage } from './s3-module-storage.ts';

export { FilesystemModuleStorage, type ModuleStorage } from './module-storage.ts';
export { S3ModuleStorage, type S3StorageSettings } from './s3-module-storage.ts';

/** Null when the deployment has no module storage: the catalogue then answers 503 apps_unavailable. */
export function createModuleStorage(config: Pick<Config, 'storage'>): ModuleStorage | null {
  const { storage } = config;
  switch (storage.kind) {
    case 'filesystem':
      return new FilesystemModuleStorage(storage.dir);
    case 's3':
      return new S3ModuleStorage(storage);
    case 'off':
      return null;
  }
}
