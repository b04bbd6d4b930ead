// JSON log lines with the fields of spec part 2 §6.4; the listed keys are censored at the top level
// and one level down wherever they appear.
import os from 'node:os';
import pino, { type DestinationStream, type Logger } from 'pino';
import { PLATFORM_VERSION } from './version.ts';

export const CENSORED_KEYS = [
  'authorization',
  'token',
  'secrets',
  'apiKey',
  'secretKey',
  'webhookSecret',
  'password',
  'submissionUrl',
  'link',
] as const;

export const REDACT_PATHS = [
  ...CENSORED_KEYS.flatMap((key) => [key, `*.${key}`]),
  'req.headers.authorization',
  'headers.authorization',
];

export interface LoggerOptions {
  service: string;
  level: string;
  env: string;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: {
        service: options.service,
        version: PLATFORM_VERSION,
        env: options.env,
        pid: process.pid,
        hostname: os.hostname(),
      },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}
