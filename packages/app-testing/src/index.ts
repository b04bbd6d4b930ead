// @apps-platform/app-testing: run a built app through the platform's real host in tests.
export type { Manifest } from '../../../src/module/index.ts';
export { type CacheChange, type LogLine, RunnerFailure, type Usage } from '../../../src/runner/index.ts';
export {
  type ConformanceCheck,
  type ConformanceOptions,
  type ConformanceReport,
  checkConformance,
} from './conformance.ts';
export type { TestDocument } from './documents.ts';
export { DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_TOTAL_BYTES } from './install-cache.ts';
export {
  type AiOption,
  type AppLogger,
  type AppLogLine,
  AppRefusedError,
  type CallResult,
  type ErrorAnswer,
  type HandoffAnswer,
  type InvokeAnswer,
  type InvokeOptions,
  type LoadedApp,
  type LoadOptions,
  loadApp,
  type WebhookAnswer,
} from './loader.ts';
export {
  type ModelDouble,
  type ModelDoubleOptions,
  type ModelPrompt,
  type ModelReply,
  startModelDouble,
} from './model-double.ts';
export { type Sample, type SampleWebhook, type WebhookTemplate, webhookExternalId } from './samples.ts';
export { type ConformanceSetup, findConformanceSetup, loadConformanceSetup } from './setup-file.ts';
export {
  startVendorDouble,
  type VendorAnswer,
  type VendorDouble,
  type VendorDoubleOptions,
  type VendorRequest,
  type VendorRoute,
} from './vendor-double.ts';
export {
  CONTROL_PREFIX,
  OUTAGE_ROUTE,
  type OutageMode,
  OutageSettingError,
  type VendorOutage,
} from './vendor-outage.ts';
export {
  type SignatureScheme,
  type SignedWebhookOptions,
  signedWebhook,
  standardWebhook,
  timestampedWebhook,
  type WebhookRequest,
} from './webhooks.ts';
