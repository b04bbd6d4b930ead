// ai-risk-summary: turns subject data into a structured risk note through the ai host function, with the
// install's model (OpenAI-compatible chat completions or Anthropic messages) and its MODEL_API_KEY.
import {
  Actions,
  AiRequest,
  AiResult,
  Answer,
  error,
  InvokeRequest,
  JSON,
  ok,
  runInvoke,
  sendManifest,
  Value,
} from '@apps-platform/app-sdk';
import { MANIFEST } from './manifest';
import { readNote } from './note';

const DEFAULT_MAX_TOKENS: i64 = 1024;
/** Each model request's own limit, inside the action's 60 s. */
const MODEL_TIMEOUT_MS = 50000;

export function manifest(): i32 {
  return sendManifest(MANIFEST);
}

/** The summarize output schema as the manifest declares it: what the model is told to answer. */
function outputSchema(): string {
  const actions = JSON.parseOrAbort(MANIFEST).getArray('actions')!;
  return actions.at(0).getObject('output')!.toString();
}

function systemPrompt(): string {
  return (
    'You are a financial-crime compliance analyst writing a risk note about one subject (a person or a company) ' +
    'for a risk-management team. Weigh only the data given; do not invent facts.\n' +
    'Answer with one JSON object and nothing else: no prose, no markdown, no code fences. ' +
    'The object must be valid against this JSON Schema:\n' +
    outputSchema() +
    '\nriskLevel is your overall assessment. summary is a short paragraph (at most 4000 characters) a reviewer can ' +
    'read on its own. factors lists at most 20 factors that drove the assessment, each with a weight from 0 ' +
    '(irrelevant) to 1 (decisive). recommendedAction is approve, review or decline.'
  );
}

function userPrompt(subject: Value, focus: string): string {
  let prompt = 'Subject data (JSON):\n' + subject.toString();
  if (focus.length > 0) prompt += '\n\nFocus the note on: ' + focus;
  return prompt + '\n\nAnswer with the JSON object only.';
}

/**
 * The endpoint: baseUrl itself when it already ends in the provider's path (/chat/completions,
 * /messages); else baseUrl + /chat/completions or /messages when it ends in /v1; else + /v1/... .
 */
function endpointOf(baseUrl: string, provider: string): string {
  let url = baseUrl;
  while (url.endsWith('/')) url = url.substring(0, url.length - 1);
  const path = provider == 'anthropic' ? '/messages' : '/chat/completions';
  if (url.endsWith(path)) return url;
  if (url.endsWith('/v1')) return url + path;
  return url + '/v1' + path;
}

/** The error answer of a model request that failed: vendor outages retryable, credentials and refusals final. */
function modelFailure(result: AiResult): Answer {
  const why = result.error!;
  if (result.refused) return error('the platform refused the model request: ' + why);
  const status = result.status;
  if (status == 401 || status == 403) {
    return error(
      'authentication failed: the model API answered ' +
        status.toString() +
        ' (check the MODEL_API_KEY secret)',
    );
  }
  if (status == 429 || status >= 500) return error('the model API answered ' + status.toString(), true);
  if (status >= 400) return error('the model API answered ' + status.toString() + ': ' + why);
  // Not reached, no answer, or not a model answer: another attempt may fare better.
  return error('the model request failed: ' + why, true);
}

function summarize(request: InvokeRequest): Answer {
  const config = request.config;
  const provider = config.getString('provider');
  if (provider != 'openai' && provider != 'anthropic')
    return error('config provider must be openai or anthropic');
  const baseUrl = config.getString('baseUrl');
  const model = config.getString('model');
  if (baseUrl.length == 0 || model.length == 0) return error('the install needs baseUrl and model in config');
  const subject = request.input.getObject('subject');
  if (subject === null) return error('subject must be an object');
  const maxTokens = config.getInteger('maxTokens', DEFAULT_MAX_TOKENS);

  const result = new AiRequest(
    provider,
    endpointOf(baseUrl, provider),
    request.call.secret('MODEL_API_KEY'),
    model,
  )
    .system(systemPrompt())
    .user(userPrompt(subject, request.input.getString('focus').trim()))
    .maxTokens(<i32>(maxTokens < 1 ? DEFAULT_MAX_TOKENS : maxTokens))
    .temperature(0)
    .timeout(MODEL_TIMEOUT_MS)
    .send();
  if (result.failed) return modelFailure(result);

  const read = readNote(result.content);
  const note = read.note;
  if (note === null) {
    const stop = result.stopReason;
    const cut = stop !== null && (stop == 'length' || stop == 'max_tokens') ? ' (cut off at maxTokens)' : '';
    return error('the model did not answer a risk note' + cut + ': ' + read.problem, true);
  }
  return ok(note);
}

const ACTIONS = new Actions().on('summarize', summarize);

export function invoke(): i32 {
  return runInvoke(ACTIONS);
}
