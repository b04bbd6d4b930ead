// log: { level?: debug|info|warn|error, message } → { ok: true } | refusal. 200 lines a call, 2000 characters each.
import type { ThreadCallState } from './call-state.ts';
import { refuse } from './refuse.ts';

export const MAX_LOG_LINES = 200;
export const MAX_LOG_CHARS = 2000;
const LEVELS = new Set(['debug', 'info', 'warn', 'error']);

export function log(state: ThreadCallState, request: unknown) {
  const { level = 'info', message } = (request ?? {}) as { level?: unknown; message?: unknown };
  if (typeof message !== 'string') return refuse('log: message must be text');
  if (typeof level !== 'string' || !LEVELS.has(level))
    return refuse('log: level must be debug, info, warn or error');
  if (state.logs.length >= MAX_LOG_LINES) return refuse(`log: at most ${MAX_LOG_LINES} lines a call`);
  // Redacted as it is kept (a module may log what it must not show), and only then cut: cut first, a
  // secret across the cut would leave its first characters, which nothing can redact any more.
  const kept = state.redactor.apply(message).slice(0, MAX_LOG_CHARS);
  // Copied: a slice keeps the whole string it was cut from (here the module's request) alive in V8.
  state.logs.push({ level: level as 'info', message: Buffer.from(kept, 'utf16le').toString('utf16le') });
  state.usage.logLines += 1;
  return { ok: true };
}
