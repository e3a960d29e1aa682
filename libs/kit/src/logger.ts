import pino, { type Logger } from 'pino';

export type { Logger };

/** Anything that could carry a credential is censored, at any of the depths we log. */
const SENSITIVE = ['authorization', 'Authorization', 'key', 'api_key', 'secret', 'test_key', 'live_key', 'password', 'token'];
const DEPTH_MAX = 4;

/** Every sensitive name at the top level and up to DEPTH_MAX levels down (pino paths are explicit). */
export const REDACT_PATHS = SENSITIVE.flatMap((name) => Array.from({ length: DEPTH_MAX + 1 }, (_, depth) => [...Array<string>(depth).fill('*'), name].join('.')));

export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
