// The manifest of the generic HTTP connector (docs/module-contract.md). See ../README.md for what each
// config field means. Kept as JSON text: sendManifest parses it, so a typo here fails every build.

const HEADER_NAME = '"^[A-Za-z0-9!#$%&\'*+.^_|~-]{1,100}$"';
const POINTER = '{"type":"string","maxLength":200,"pattern":"^/([^~]|~[01])*$"}';
const JSON_SOURCE = '{"type":"object","additionalProperties":false,"required":["json"],"properties":{"json":' + POINTER + '}}';
const HEADER_SOURCE =
  '{"type":"object","additionalProperties":false,"required":["header"],"properties":{"header":{"type":"string","pattern":' +
  HEADER_NAME +
  '}}}';
const SIGNED_SOURCE = '{"oneOf":[' + JSON_SOURCE + ',' + HEADER_SOURCE + ']}';
const STATUS_VALUES = '{"type":"array","minItems":1,"maxItems":20,"items":{"type":"string","minLength":1,"maxLength":100}}';
/** For a scheme: where a header may name the external or event id (only headers the scheme signs). */
function onlyFromBody(scheme: string): string {
  return (
    '{"if":{"properties":{"scheme":{"const":"' +
    scheme +
    '"}}},"then":{"properties":{"externalIdFrom":{"required":["json"]},"eventIdFrom":{"required":["json"]}}}}'
  );
}
const STANDARD_HEADERS =
  '{"if":{"properties":{"scheme":{"const":"standard-webhooks"}}},"then":{"properties":' +
  '{"externalIdFrom":{"properties":{"header":{"enum":["webhook-id","webhook-timestamp"]}}},' +
  '"eventIdFrom":{"properties":{"header":{"enum":["webhook-id","webhook-timestamp"]}}}}}}';

const CONFIG_SCHEMA =
  `{"type":"object","additionalProperties":false,"required":["baseUrl"],"properties":{
"baseUrl":{"type":"string","title":"Base URL","maxLength":2000,"pattern":"^https?://[^/?#@ ]+(/[^?# ]*)?$",
  "description":"The vendor API every request goes to (https; http only on a private-network development stack). Its host is the install's approved host."},
"headers":{"type":"object","title":"Headers","maxProperties":50,"propertyNames":{"pattern":` +
  HEADER_NAME +
  `},
  "additionalProperties":{"type":"string","maxLength":4000},
  "description":"Headers sent with every request. Values may hold {{secret:NAME}} and <<key>> variables."},
"variables":{"type":"array","title":"Variables","maxItems":20,
  "description":"Variables a request names as <<key>> in path, query, headers or body. A secret variable is stored as a secret named by its key and may be placed by steps only where its stepPlaces allow.",
  "items":{"type":"object","additionalProperties":false,"required":["key"],"properties":{
    "key":{"type":"string","pattern":"^[A-Za-z][A-Za-z0-9_]{0,63}$"},
    "value":{"type":"string","maxLength":4000},
    "secret":{"type":"boolean"},
    "stepPlaces":{"type":"array","uniqueItems":true,"items":{"enum":["path","query","headers","body"]}}},
    "if":{"required":["secret"],"properties":{"secret":{"const":true}}},
    "then":{"not":{"required":["value"]}},
    "else":{"not":{"required":["stepPlaces"]}}}},
"auth":{"type":"object","title":"Authentication","additionalProperties":false,"required":["type"],"properties":{
    "type":{"enum":["none","bearer","basic","digest","apiKey"]},
    "header":{"type":"string","pattern":` +
  HEADER_NAME +
  `,"description":"apiKey: the header carrying the API_KEY secret."},
    "prefix":{"type":"string","maxLength":100,"description":"apiKey: text sent before the key, e.g. 'Token '."},
    "username":{"type":"string","minLength":1,"maxLength":200,"description":"basic, digest: the user name, or {{secret:USERNAME}} to keep it secret."}},
  "allOf":[{"if":{"properties":{"type":{"const":"apiKey"}}},"then":{"required":["header"]}},
    {"if":{"properties":{"type":{"enum":["basic","digest"]}}},"then":{"required":["username"]}}]},
"webhook":{"type":"object","title":"Webhooks","additionalProperties":false,"required":["scheme","externalIdFrom"],"properties":{
    "scheme":{"enum":["hmac","hmac-timestamped","standard-webhooks"]},
    "signatureHeader":{"type":"string","pattern":` +
  HEADER_NAME +
  `,"description":"hmac, hmac-timestamped: default x-signature."},
    "signaturePrefix":{"type":"string","maxLength":50,"description":"hmac, hmac-timestamped: text before the signature, e.g. sha256=."},
    "signatureEncoding":{"enum":["hex","base64"],"description":"hmac, hmac-timestamped: default hex."},
    "timestampHeader":{"type":"string","pattern":` +
  HEADER_NAME +
  `,"description":"hmac-timestamped: default x-timestamp."},
    "secretEncoding":{"enum":["utf8","base64","hex"],"description":"How the WEBHOOK_SECRET text becomes the key: default utf8."},
    "toleranceSeconds":{"type":"integer","minimum":1,"maximum":86400,"description":"Timestamped schemes: the largest clock difference accepted, default 300."},
    "externalIdFrom":` +
  SIGNED_SOURCE +
  `,
    "eventIdFrom":` +
  SIGNED_SOURCE +
  `,
    "statusFrom":` +
  JSON_SOURCE +
  `,
    "completedValues":` +
  STATUS_VALUES +
  `,
    "failedValues":` +
  STATUS_VALUES +
  `,
    "pendingValues":` +
  STATUS_VALUES +
  `,
    "outputFrom":` +
  JSON_SOURCE +
  `,
    "errorFrom":` +
  JSON_SOURCE +
  `},
  "allOf":[` +
  onlyFromBody('hmac') +
  ',' +
  onlyFromBody('hmac-timestamped') +
  ',' +
  STANDARD_HEADERS +
  `]},
"asyncExternalId":{"type":"string","maxLength":200,"pattern":"^(/([^~]|~[01])*)?$","default":"/id",
  "description":"request_async: where the vendor's answer holds the id its webhook names later."},
"idempotencyKeyHeader":{"type":"string","pattern":` +
  HEADER_NAME +
  `,"description":"Sends the step's idempotency key in this header (e.g. Idempotency-Key)."}
}}`;

const REQUEST_PROPERTIES = `"method":{"enum":["GET","HEAD","POST","PUT","PATCH","DELETE","OPTIONS"]},
"path":{"type":"string","minLength":1,"maxLength":4000,"pattern":"^/[^#]*$","description":"Appended to baseUrl; may hold <<key>> variables."},
"query":{"type":"object","maxProperties":100,"additionalProperties":{"anyOf":[{"type":["string","number","boolean"]},
  {"type":"array","maxItems":100,"items":{"type":["string","number","boolean"]}}]}},
"headers":{"type":"object","maxProperties":50,"additionalProperties":{"type":"string","maxLength":4000}},
"body":{"description":"Text sent as it is, or any other JSON value sent as JSON."},
"timeoutMs":{"type":"integer","minimum":1,"maximum":30000}`;

const RESPONSE_OUTPUT = `{"type":"object","required":["status","headers","body"],"properties":{
"status":{"type":"integer"},
"headers":{"type":"object","additionalProperties":{"type":"string"}},
"body":{"description":"The answer's JSON when its content type is JSON, else its text (null when not UTF-8)."},
"bodyBase64":{"type":"string","description":"The answer's bytes when they are not UTF-8 text."}}}`;

export const MANIFEST =
  `{"interface":2,"name":"http-connector","version":"1.0.0","title":"HTTP connector",
"description":"Calls any HTTPS API at the install's base URL with its headers, authentication and secret variables; request_async waits for the vendor's signed webhook (hmac, hmac-timestamped or Standard Webhooks).",
"category":"Integration","capabilities":["http","webhooks","secret-variables"],
"configSchema":` +
  CONFIG_SCHEMA +
  `,
"secrets":[
  {"name":"TOKEN","description":"Bearer token (auth type bearer).","requiredWhen":[{"config":"/auth/type","in":["bearer"]}]},
  {"name":"USERNAME","description":"A secret user name, when auth.username is {{secret:USERNAME}}.","requiredWhen":[{"config":"/auth/username","in":["{{secret:USERNAME}}"]}]},
  {"name":"PASSWORD","description":"Password (auth type basic or digest).","requiredWhen":[{"config":"/auth/type","in":["basic","digest"]}]},
  {"name":"API_KEY","description":"API key sent in auth.header (auth type apiKey).","requiredWhen":[{"config":"/auth/type","in":["apiKey"]}]},
  {"name":"WEBHOOK_SECRET","description":"The vendor's webhook signing secret.","requiredWhen":[{"config":"/webhook/scheme"}]}],
"actions":[
  {"name":"request","description":"One HTTP request to the vendor; answers its status, headers and body. 429, 5xx and requests that were not sent are retryable.",
   "input":{"type":"object","additionalProperties":false,"required":["method","path"],"properties":{` +
  REQUEST_PROPERTIES +
  `}},
   "output":` +
  RESPONSE_OUTPUT +
  `,
   "timeoutMs":30000,"idempotent":false,"retry":{"maxAttempts":3,"backoffMs":1000}},
  {"name":"request_async","description":"Starts a vendor job with one HTTP request and waits for the vendor's signed webhook; completes with the webhook's JSON body.",
   "input":{"type":"object","additionalProperties":false,"required":["method","path"],"properties":{` +
  REQUEST_PROPERTIES +
  `,
"callbackTimeoutSeconds":{"type":"integer","minimum":1,"maximum":604800,"description":"Waits at most this long for the webhook (default: seven days)."}}},
   "output":{"type":"object","description":"The webhook's JSON body (or the part at webhook.outputFrom); a body that is no JSON object comes as { body }."},
   "timeoutMs":30000,"idempotent":false,"retry":{"maxAttempts":3,"backoffMs":1000},
   "async":{"callbackTimeoutSeconds":604800}}],
"hostsFromConfig":["/baseUrl"],
"secretsFromConfig":"/variables",
"memoryMiB":128,
"handles":{"webhook":true,"webhookExternalIdFromConfig":"/webhook/externalIdFrom"}}`;
