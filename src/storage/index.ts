// The object storage a deployment's settings name: the filesystem under DATA_DIR, an S3-compatible
// bucket, or none (MODULE_STORAGE=off). Modules live under DATA_DIR/modules or `<STORAGE_PREFIX>`;
// subjects' documents under DATA_DIR/documents or `<STORAGE_DOCUMENTS_PREFIX>` of the same bucket.
import path from 'node:path';
import type { Config } from '../config.ts';
import { FilesystemModuleStorage, type ModuleStorage } from './module-storage.ts';
import { FilesystemObjects, type ObjectStore } from './objects.ts';
import { S3ModuleStorage } from './s3-module-storage.ts';
import { S3Objects } from './s3-objects.ts';

export { FilesystemModuleStorage, type ModuleStorage } from './module-storage.ts';
export { FilesystemObjects, isObjectKey, type ObjectStore } from './objects.ts';
export { S3ModuleStorage } from './s3-module-storage.ts';
export { S3Objects, type S3StorageSettings } from './s3-objects.ts';

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

/** Null when the deployment has no object storage: the documents routes then answer 503 documents_unavailable. */
export function createDocumentObjects(config: Pick<Config, 'storage' | 'dataDir'>): ObjectStore | null {
  const { storage } = config;
  switch (storage.kind) {
    case 'filesystem':
      return new FilesystemObjects(path.join(config.dataDir, 'documents'));
    case 's3':
      return new S3Objects(storage, storage.documentsPrefix, 'document storage');
    case 'off':
      return null;
  }
}
