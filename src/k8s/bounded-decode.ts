// Decoding of JSON and YAML request bodies with bounded work: nesting is limited before anything recursive runs
// (parsers, patch engines and JSON.stringify all recurse), and YAML stops at its first syntax error instead of
// collecting (and pretty-printing, which is quadratic) one error per token of a hostile body.
import { Composer, type CST, Lexer, Parser } from 'yaml';
import { badRequest, requestEntityTooLarge, type StatusError } from './status.ts';

type Token = CST.Token;
type ComposeErrorHandler = (source: unknown, code: string, message: string, warning?: boolean) => void;

/**
 * Deepest nesting of objects and arrays a body may have. Kubernetes' own objects (CRD schemas included) stay far
 * below; Kubernetes' decoders stop at 10000, which our recursive walks (patches, managed fields) could not afford.
 */
export const MAX_BODY_DEPTH = 1000;

/** A 400 for an undecodable body. Parser messages may quote the body: only a short, snippet-free reason is kept. */
const undecodable = (reason: string) =>
  badRequest(
    `the request body could not be decoded: ${reason.replace(/, (?:\.\.\.)?".*$/s, '').slice(0, 200)}`,
  );

/** Whether JSON text nests deeper than `max` (one linear pass; exact for any text JSON.parse accepts). */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character (possibly a quote).
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether an already parsed value nests deeper than `max` (iterative: a hostile value cannot overflow the stack). */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The 400 for a body nested deeper than MAX_BODY_DEPTH. */
export const tooDeep = () => undecodable(`nesting is deeper than ${MAX_BODY_DEPTH} levels`);

/** JSON.parse with the nesting limit; a syntax error is a 400 naming only the parser's message. */
export function decodeJson(text: string): unknown {
  if (jsonNestsDeeperThan(text, MAX_BODY_DEPTH)) throw tooDeep();
  try {
    return JSON.parse(text);
  } catch (err) {
    throw undecodable((err as Error).message);
  }
}

/**
 * Largest YAML body that is not JSON. yaml costs about a microsecond per byte (JSON.parse a hundredth of that), and
 * composing the parsed document cannot be sliced: this bounds that stretch to tens of milliseconds. kubectl and
 * KubeSphere's console send JSON (also for server-side apply), which only the caller's body limit bounds.
 */
export const MAX_YAML_CHARS = 256 * 1024;
/** Longest stretch of YAML parsing before yielding to the event loop. */
const SLICE_MS = 4;

/**
 * Parses one YAML document. JSON (what kubectl sends, also as apply-patch+yaml) takes the fast path; anything else
 * goes through yaml's lexer and parser token by token, in slices that let other requests run, refusing at the
 * first syntax error or past the nesting limit, and is composed only when the syntax is clean. Duplicate keys keep
 * the last value, as JSON.parse (yaml's uniqueness check is quadratic in the number of keys).
 */
export async function decodeYaml(text: string): Promise<unknown> {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    if (jsonNestsDeeperThan(text, MAX_BODY_DEPTH)) throw tooDeep();
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all (e.g. flow-style YAML with unquoted keys): parse it as YAML below
    }
  }
  if (text.length > MAX_YAML_CHARS) {
    throw requestEntityTooLarge(
      `YAML request bodies are limited to ${MAX_YAML_CHARS} characters; send larger objects as JSON`,
    );
  }
  const parser = new Parser();
  const tokens: Token[] = [];
  const take = (token: Token) => {
    if (token.type === 'error') throw undecodable(token.message);
    tokens.push(token);
  };
  let sliceStart = performance.now();
  let n = 0;
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) take(token);
    if (parser.stack.length > MAX_BODY_DEPTH) throw tooDeep();
    if (++n % 1024 === 0 && performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  for (const token of parser.end()) take(token);

  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  // yaml builds an error object per faulty node (a hostile body has one per token); stop at the first instead.
  // onError is an own property of each Composer, so replacing it touches nothing shared.
  let failure: StatusError | undefined;
  (composer as unknown as { onError: ComposeErrorHandler }).onError = (_source, _code, message, warning) => {
    if (warning) return;
    // yaml may catch the throw and report it again: keep the first error.
    failure ??= undecodable(message);
    throw failure;
  };
  const docs = [...composer.compose(tokens)];
  if (docs.length > 1) throw undecodable('it holds more than one document');
  const doc = docs[0];
  if (!doc) return null;
  const [err] = doc.errors;
  if (err) throw undecodable(err.message);
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw undecodable((e as Error).message);
  }
}
