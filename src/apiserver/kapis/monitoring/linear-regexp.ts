// Regexes from requests (`metrics_filter`) run in V8's linear-time engine (the `l` flag), so no pattern can make
// matching backtrack exponentially (ReDoS). The engine refuses what it cannot run linearly (backreferences,
// lookaround), which RE2, the syntax KubeSphere documents, does not have either. The flag only makes the `l` flag
// available; no other regex changes engine.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine');

/** Compiles `source` for the linear-time engine; throws SyntaxError when it is not a regex that engine can run. */
export function linearRegExp(source: string): RegExp {
  return new RegExp(source, 'l');
}
