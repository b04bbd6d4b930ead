// Writing the four exports: each reads its request, hands it to the app's function and writes the answer.
//
//   export function manifest(): i32 { return sendManifest(MANIFEST); }
//   const ACTIONS = new Actions().on('greet', greet);
//   export function invoke(): i32 { return runInvoke(ACTIONS); }
//   export function handle_webhook(): i32 { return runWebhook(onWebhook); }
//   export function handoff(): i32 { return runHandoff(onHandoff); }
import { error_set } from '@extism/as-pdk/lib/env';
import { Answer, error } from './answers';
import { HandoffRequest, InvokeRequest, readRequest, WebhookRequest } from './envelope';
import { outputText, toBlock, utf8 } from './io';
import { Value } from './json';
import { JSON, lastJsonErrorAt } from './json-parse';

export type ActionHandler = (request: InvokeRequest) => Answer;
export type WebhookHandler = (request: WebhookRequest) => Answer;
export type HandoffHandler = (request: HandoffRequest) => Answer;

/** Answers the manifest: JSON text the app declares, read strictly by `app build` and at upload. */
export function sendManifest(manifest: string): i32 {
  const parsed = JSON.parse(manifest);
  if (parsed === null) {
    // `app build` shows this as the reason the manifest export failed.
    const at = lastJsonErrorAt();
    const before = manifest.substring(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    return fail(
      'the manifest text is not JSON: ' +
        JSON.lastError() +
        ' (line ' +
        line.toString() +
        ', column ' +
        column.toString() +
        ')',
    );
  }
  return outputText(parsed.toString());
}

/** Ends the export as failed with a message (the runner reports the call as trapped, with it). */
export function fail(message: string): i32 {
  error_set(toBlock(utf8(message)));
  return 1;
}

/** Answers a manifest built as a Value. */
export function sendManifestValue(manifest: Value): i32 {
  return outputText(manifest.toString());
}

/** Writes an answer as the export's output; answers 0 (success) for the export to return. */
export function send(answer: Answer): i32 {
  return outputText(answer.toString());
}

/** The actions of an app by name. */
export class Actions {
  private names: Array<string> = [];
  private handlers: Array<ActionHandler> = [];

  on(name: string, handler: ActionHandler): Actions {
    const at = this.names.indexOf(name);
    if (at >= 0) {
      this.handlers[at] = handler;
    } else {
      this.names.push(name);
      this.handlers.push(handler);
    }
    return this;
  }

  has(name: string): bool {
    return this.names.includes(name);
  }

  list(): Array<string> {
    return this.names.slice(0);
  }

  /** The action's answer; an unknown action is an error answer (not retryable). */
  dispatch(request: InvokeRequest): Answer {
    const at = this.names.indexOf(request.action);
    if (at < 0) return error('unknown action ' + request.action);
    return this.handlers[at](request);
  }
}

function badEnvelope(): i32 {
  return send(error('the request is not a JSON envelope: ' + JSON.lastError()));
}

/** The invoke export: reads { call, action, idempotencyKey, config, input } and dispatches by action. */
export function runInvoke(actions: Actions): i32 {
  const raw = readRequest();
  if (raw === null) return badEnvelope();
  return send(actions.dispatch(InvokeRequest.from(raw)));
}

/** The handle_webhook export. */
export function runWebhook(handler: WebhookHandler): i32 {
  const raw = readRequest();
  if (raw === null) return badEnvelope();
  return send(handler(WebhookRequest.from(raw)));
}

/** The handoff export. */
export function runHandoff(handler: HandoffHandler): i32 {
  const raw = readRequest();
  if (raw === null) return badEnvelope();
  return send(handler(HandoffRequest.from(raw)));
}
