// @apps-platform/app-sdk: write Apps Platform apps in AssemblyScript. See docs/writing-apps.md.
export { abortToTrap } from './abort';
export {
  Answer,
  EVENT_COMPLETED,
  EVENT_FAILED,
  EVENT_PENDING,
  error,
  event,
  eventCompleted,
  eventFailed,
  eventPending,
  handoffPage,
  ignored,
  MAX_RETRY_AFTER_MS,
  noHandoff,
  ok,
  pending,
  rejected,
} from './answers';
export {
  ActionHandler,
  Actions,
  fail,
  HandoffHandler,
  runHandoff,
  runInvoke,
  runWebhook,
  send,
  sendManifest,
  sendManifestValue,
  WebhookHandler,
} from './app';
export { base64Decode, base64Encode } from './base64';
export { Call, HandoffRequest, InvokeRequest, readRequest, WebhookRequest } from './envelope';
export { AiRequest, AiResult, ai } from './host-ai';
export { HttpRequest, HttpResponse, httpRequest } from './host-http';
export {
  CacheResult,
  cacheDelete,
  cacheGet,
  cacheSet,
  callHost,
  DocumentResult,
  documentRead,
  HmacOptions,
  HmacResult,
  HostResult,
  hmac,
  hmacVerify,
  log,
  logDebug,
  logError,
  logInfo,
  logWarn,
  VerifyResult,
} from './host';
export { fromUtf8, inputBytes, inputText, outputText, utf8 } from './io';
export { JsonKind, MAX_JSON_DEPTH, Value } from './json';
export { JSON, lastJsonError, lastJsonErrorAt, parseJson } from './json-parse';
export { quote } from './json-write';
export {
  configSecretNames,
  expandVariables,
  isSecretName,
  readVariables,
  secretNamesIn,
  secretPlaceholder,
  Variable,
} from './secrets';
export { defaultEventId, defaultEventIdOf, EVENT_ID_KEY, verifySignature } from './webhooks';
export { failureOf, retryAfterMs, vendorDetail } from './vendor';
