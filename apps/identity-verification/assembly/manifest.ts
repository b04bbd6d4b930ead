// The manifest of identity-verification (docs/module-contract.md). Read strictly by `app build` and upload.
export const MANIFEST = `{
  "interface": 2,
  "name": "identity-verification",
  "version": "1.0.0",
  "title": "Identity verification",
  "description": "A hosted identity-verification flow: start_verification opens a vendor session and waits; the applicant is handed off to the vendor's hosted page; the vendor's signed webhook completes the session with the decision. Documents of the subject may be attached when the install enables them.",
  "category": "Identity",
  "vendor": "A hosted IDV vendor (sessions API with signed webhooks)",
  "capabilities": ["kyc", "identity", "hosted-flow"],
  "configSchema": {
    "type": "object",
    "required": ["baseUrl"],
    "additionalProperties": false,
    "properties": {
      "baseUrl": {
        "type": "string",
        "format": "uri",
        "pattern": "^https?://",
        "description": "The vendor's API, e.g. https://api.idv-vendor.example (its host is approved for the install)."
      },
      "hostedPageUrl": {
        "type": "string",
        "format": "uri",
        "pattern": "^https?://",
        "description": "Only when the vendor's hosted pages live on another host than the API: any URL on that host, so that the host is approved."
      },
      "documentsEnabled": {
        "type": "boolean",
        "description": "Read the documents named in documentIds and send them to the vendor with the session."
      },
      "callbackTimeoutSeconds": {
        "type": "integer",
        "minimum": 60,
        "maximum": 604800,
        "default": 86400,
        "description": "How long a run waits for the vendor's decision."
      }
    }
  },
  "secrets": [
    { "name": "API_KEY", "description": "The vendor API key, sent as Authorization: Bearer <key>." },
    { "name": "WEBHOOK_SECRET", "description": "The vendor's webhook signing secret (x-idv-signature: hex HMAC-SHA256 of the body)." }
  ],
  "hostsFromConfig": ["/baseUrl", "/hostedPageUrl"],
  "needs": ["documents"],
  "documentsFromConfig": "/documentsEnabled",
  "memoryMiB": 128,
  "actions": [
    {
      "name": "start_verification",
      "description": "Opens a verification session for the applicant and waits for the vendor's decision.",
      "input": {
        "type": "object",
        "required": ["firstName", "lastName"],
        "additionalProperties": false,
        "properties": {
          "subjectId": { "type": "string", "minLength": 1, "maxLength": 200 },
          "firstName": { "type": "string", "minLength": 1, "maxLength": 200 },
          "lastName": { "type": "string", "minLength": 1, "maxLength": 200 },
          "email": { "type": "string", "format": "email", "maxLength": 320 },
          "country": { "type": "string", "minLength": 2, "maxLength": 3 },
          "documentIds": {
            "type": "array",
            "maxItems": 10,
            "uniqueItems": true,
            "items": { "type": "string", "pattern": "^[A-Za-z0-9_-]{1,100}$" },
            "description": "Documents of the subject sent with the session when the install enables documents."
          }
        }
      },
      "output": {
        "type": "object",
        "required": ["decision", "reasons", "sessionId"],
        "additionalProperties": false,
        "properties": {
          "decision": { "enum": ["approved", "declined"] },
          "reasons": { "type": "array", "items": { "type": "string" } },
          "sessionId": { "type": "string" }
        }
      },
      "timeoutMs": 30000,
      "retry": { "maxAttempts": 3, "backoffMs": 1000 },
      "async": { "callbackTimeoutSeconds": 604800 },
      "mappable": ["/subjectId", "/firstName", "/lastName", "/email", "/country", "/documentIds"]
    }
  ],
  "handles": { "webhook": true, "webhookExternalId": { "json": "/sessionId" }, "handoff": true }
}`;
