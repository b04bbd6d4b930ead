// The manifest of ai-risk-summary (docs/module-contract.md). Checked strictly by `app build` and upload. The
// summarize output schema is also what the module shows the model (see prompt.ts).
export const MANIFEST = `{
  "interface": 2,
  "name": "ai-risk-summary",
  "version": "1.0.0",
  "title": "AI risk summary",
  "description": "Turns subject data into a structured risk note (risk level, summary, weighted factors, recommended action) with a language model of the install's choice (OpenAI-compatible or Anthropic). The model's answer is checked against the output schema before it is returned.",
  "category": "Risk analysis",
  "vendor": "The install's model vendor (OpenAI-compatible chat completions or Anthropic messages)",
  "capabilities": ["ai", "risk", "summary"],
  "configSchema": {
    "type": "object",
    "required": ["provider", "baseUrl", "model"],
    "additionalProperties": false,
    "properties": {
      "provider": {
        "enum": ["openai", "anthropic"],
        "description": "openai: an OpenAI-compatible chat completions API; anthropic: the Anthropic messages API."
      },
      "baseUrl": {
        "type": "string",
        "format": "uri",
        "pattern": "^https?://",
        "description": "The model API: a base such as https://api.openai.com/v1 or https://api.anthropic.com, or the full endpoint (.../chat/completions, .../messages)."
      },
      "model": { "type": "string", "minLength": 1, "maxLength": 200, "description": "The model name, e.g. gpt-4o-mini or claude-sonnet-4-5." },
      "maxTokens": { "type": "integer", "minimum": 256, "maximum": 8192, "default": 1024, "description": "Output tokens the model may use." }
    }
  },
  "secrets": [{ "name": "MODEL_API_KEY", "description": "The model vendor's API key (Bearer for openai, x-api-key for anthropic)." }],
  "hostsFromConfig": ["/baseUrl"],
  "actions": [
    {
      "name": "summarize",
      "description": "Asks the model for a risk note on the subject data, optionally with a focus, and checks its answer.",
      "input": {
        "type": "object",
        "required": ["subject"],
        "additionalProperties": false,
        "properties": {
          "subject": { "type": "object", "description": "Any subject data: profile, screening results, transactions..." },
          "focus": { "type": "string", "maxLength": 2000, "description": "What the note should weigh most, e.g. source of funds." }
        }
      },
      "output": {
        "type": "object",
        "required": ["riskLevel", "summary", "factors", "recommendedAction"],
        "additionalProperties": false,
        "properties": {
          "riskLevel": { "enum": ["low", "medium", "high"] },
          "summary": { "type": "string", "minLength": 1, "maxLength": 4000 },
          "factors": {
            "type": "array",
            "maxItems": 20,
            "items": {
              "type": "object",
              "required": ["factor", "weight"],
              "additionalProperties": false,
              "properties": {
                "factor": { "type": "string", "minLength": 1, "maxLength": 500 },
                "weight": { "type": "number", "minimum": 0, "maximum": 1 }
              }
            }
          },
          "recommendedAction": { "enum": ["approve", "review", "decline"] }
        }
      },
      "timeoutMs": 60000,
      "retry": { "maxAttempts": 2, "backoffMs": 2000 },
      "idempotent": true,
      "mappable": ["/subject", "/focus"]
    }
  ]
}`;
