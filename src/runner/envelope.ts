// The module contract's envelope (docs/module-contract.md): the per-call secret tag and the config as the
// module reads it. The answers each export may give: answer-shapes.ts, read by answer.ts.
import { randomFillSync } from 'node:crypto';

// Random bytes drawn 4 KiB at a time, each serving one tag: a draw of 16 bytes for every call cost more.
const pool = Buffer.alloc(4096);
let taken = pool.length;

/** 16 random bytes in base64url: 22 characters, drawn for every call of an export. */
export function drawSecretTag(): string {
  if (taken + 16 > pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const tag = pool.toString('base64url', taken, taken + 16);
  taken += 16;
  return tag;
}

const CONFIG_PLACEHOLDER = /\{\{secret:([A-Za-z][A-Za-z0-9_]{0,63})\}\}/g;

/** The config as the module reads it: each {{secret:NAME}} in its text becomes {{secret:NAME:TAG}}. */
export function tagConfig(value: unknown, tag: string): unknown {
  if (typeof value === 'string')
    return value.replace(CONFIG_PLACEHOLDER, (_m, name: string) => `{{secret:${name}:${tag}}}`);
  if (Array.isArray(value)) return value.map((item) => tagConfig(item, tag));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tagConfig(item, tag)]));
  }
  return value;
}

export type { ExportName } from './answer-shapes.ts';
