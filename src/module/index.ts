// The module subsystem's front door: what other layers may use of an app's WebAssembly module and its
// manifest. Files outside src/module import only this file, so its inside can change behind it. Each
// group's comment stands apart (a blank line under it) so that sorting the exports keeps the groups.

// The manifest: its parts, its limits and its parsing.

export type {
  ActionDeclaration,
  JsonSchema,
  Manifest,
  Need,
  RequiredWhenCondition,
  WebhookExternalIdSource,
} from './manifest.ts';
export { MANIFEST_LIMITS, parseManifest } from './manifest.ts';

// Names, config pointers and host strings as a manifest and an install spell them.

export { type HostString, parseHostString } from './hosts.ts';
export { ACTION_NAME, nameProblem, pointerTokens, SECRET_NAME, versionProblem } from './names.ts';

// The JSON Schemas of a manifest, and the input keys that no input mapping can reach.

export { unmappableKeys } from './mappable.ts';
export { compiledSchema, createSchemaAjv } from './schemas.ts';

// Where a vendor webhook's external id is read before any module code runs.

export {
  externalIdSource,
  externalIdText,
  type ReceivedWebhook,
  webhookExternalId,
} from './webhook-external-id.ts';

// A module's bytes: checked, inspected, compiled, capped and hashed.

export { compileModule } from './compile.ts';
export {
  checkExports,
  checkMemoryExport,
  checkModuleBytes,
  inspectModuleBytes,
  prepareModule,
} from './inspect.ts';
export { checkInstanceSize } from './instance-size.ts';
export { capMemory, MAX_MODULE_BYTES, PAGES_PER_MIB, readModule, sha256Hex } from './wasm.ts';

// The host functions a module may import, which the runner binds.

export { checkImports, HOST_FUNCTIONS, type HostFunctionName } from './imports.ts';

// The bounds a module's sections are held to (bench/module-compile builds a module at each).

export { MAX_BODY_BYTES, MAX_NESTING, scanBodies } from './bodies.ts';
export {
  MAX_CUSTOM_SECTIONS,
  MAX_ELEMENT_SEGMENTS,
  MAX_EXPORTS,
  MAX_FUNCTIONS,
  MAX_IMPORTS,
  MAX_TYPES,
} from './counts.ts';
export { MAX_DATA_SEGMENTS, MAX_GLOBALS, MAX_TABLE_ENTRIES } from './instance-size.ts';
