import pino, { type Logger } from 'pino';

export type { Logger };

/** Anything that could carry a credential is censored, at any of the depths we log. */
export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  'headers.authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.*.authorization',
  'key',
  '*.key',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'test_key',
  'live_key',
  '*.test_key',
  '*.live_key',
  'password',
  '*.password',
  'token',
  '*.token',
];

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
