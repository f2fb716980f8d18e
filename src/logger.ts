// The process logger: one JSON object per line on stdout (plain-text messages for people go to stderr).
import pino, { type Logger } from 'pino';

export function createLogger(level: string, bindings: Record<string, string> = {}): Logger {
  return pino({
    level,
    // pino does not merge a child's bindings over the base: `component` belongs to the children alone.
    base: { name: 'kapiserver', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Defence in depth: these keys never reach a log line even if a caller passes them by mistake.
    redact: {
      paths: [
        'authorization',
        'password',
        'token',
        'secret',
        '*.authorization',
        '*.password',
        '*.token',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
