// The manifest of sanctions-screening (docs/module-contract.md). Checked strictly by `app build` and upload.
export const MANIFEST = `{
  "interface": 2,
  "name": "sanctions-screening",
  "version": "1.0.0",
  "title": "Sanctions screening",
  "description": "Screens a person or a company against an OpenSanctions-compatible match API (POST /match/{dataset}) and answers the matches with their scores and a hit flag.",
  "category": "Screening",
  "vendor": "OpenSanctions or a compatible match API",
  "docsUrl": "https://api.opensanctions.org/",
  "capabilities": ["sanctions", "pep", "screening"],
  "configSchema": {
    "type": "object",
    "required": ["baseUrl"],
    "additionalProperties": false,
    "properties": {
      "baseUrl": {
        "type": "string",
        "format": "uri",
        "pattern": "^https?://",
        "description": "The match API, e.g. https://api.opensanctions.org (its host is approved for the install)."
      },
      "dataset": {
        "type": "string",
        "pattern": "^[A-Za-z0-9_-]{1,100}$",
        "default": "default",
        "description": "The dataset or collection to match against."
      },
      "threshold": {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "default": 0.7,
        "description": "A result scoring at least this counts as a hit, as does any result the API marks as a match."
      }
    }
  },
  "secrets": [{ "name": "API_KEY", "description": "The match API key, sent as Authorization: ApiKey <key>." }],
  "hostsFromConfig": ["/baseUrl"],
  "actions": [
    {
      "name": "screen",
      "description": "Screens one person or company; hit is true when any result is a match or scores at least the threshold.",
      "input": {
        "type": "object",
        "required": ["entityType", "name"],
        "additionalProperties": false,
        "properties": {
          "entityType": { "enum": ["person", "company"] },
          "name": { "type": "string", "minLength": 1, "maxLength": 500 },
          "birthDate": { "type": "string", "maxLength": 30, "description": "Person: date of birth (YYYY, YYYY-MM or YYYY-MM-DD). Company: incorporation date." },
          "nationality": { "type": "string", "maxLength": 100, "description": "Person: nationality. Company: jurisdiction of incorporation." },
          "country": { "type": "string", "maxLength": 100 },
          "registrationNumber": { "type": "string", "maxLength": 200, "description": "Company: registration number. Person: national id number." }
        }
      },
      "output": {
        "type": "object",
        "required": ["hit", "matches", "total"],
        "additionalProperties": false,
        "properties": {
          "hit": { "type": "boolean" },
          "matches": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["id", "caption", "schema", "score", "match", "datasets"],
              "additionalProperties": false,
              "properties": {
                "id": { "type": "string" },
                "caption": { "type": "string" },
                "schema": { "type": "string" },
                "score": { "type": "number" },
                "match": { "type": "boolean" },
                "datasets": { "type": "array", "items": { "type": "string" } }
              }
            }
          },
          "total": { "type": "integer", "minimum": 0 }
        }
      },
      "timeoutMs": 20000,
      "retry": { "maxAttempts": 3, "backoffMs": 500 },
      "idempotent": true,
      "mappable": ["/entityType", "/name", "/birthDate", "/nationality", "/country", "/registrationNumber"]
    }
  ]
}`;
