// The process logger: one JSON object per line on stdout (plain-text messages for people go to stderr).
import pino, { type Logger } from 'pino';

/**
 * Batching of the busy server's log lines (one request log line per request: a write each cost ~20 us of CPU per
 * request, issue 17). Lines wait until they fill a write or for at most `periodicFlush` ms, and are all written on
 * exit (pino flushes its destination then). Writes stay within PIPE_BUF and hold whole lines, so they are atomic on
 * a pipe: lines of the dev cluster child, which shares stdout, never land inside one of these.
 */
const BUFFERED = { minLength: 3584, maxWrite: 4096, periodicFlush: 100 };

/** `buffered`: batch the lines as above (the server); otherwise each line is written as it is logged. */
export function createLogger(
  level: string,
  bindings: Record<string, string> = {},
  opts: { buffered?: boolean } = {},
): Logger {
  const options = {
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
  };
  return opts.buffered ? pino(options, pino.destination({ dest: 1, ...BUFFERED })) : pino(options);
}
