// Strict application/x-www-form-urlencoded parsing for /oauth: invalid UTF-8 and repeated parameters are errors
// (RFC 6749 section 3.2: parameters MUST NOT be included more than once), never silently "fixed".
import { invalidRequest } from './errors.ts';

export type Form = Map<string, string>;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    throw invalidRequest('the request body is not valid percent-encoded UTF-8');
  }
}

/** Parses a form body. Throws an `invalid_request` OAuthError describing what is wrong (never echoing values). */
export function parseForm(body: Buffer | string): Form {
  let text: string;
  if (typeof body === 'string') text = body;
  else {
    try {
      text = utf8.decode(body);
    } catch {
      throw invalidRequest('the request body is not valid UTF-8');
    }
  }
  const form: Form = new Map();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1));
    if (form.has(key)) {
      throw invalidRequest(`parameter "${key.slice(0, 64)}" is included more than once`);
    }
    form.set(key, value);
  }
  return form;
}

/** A parsed form as the plain object its route schema describes (no body at all is an empty form). */
export function formFields(body: unknown): unknown {
  if (body === undefined || body === null) return {};
  return body instanceof Map ? Object.fromEntries(body) : body;
}

/** Client credentials from `Authorization: Basic` (RFC 6749 2.3.1: each part form-url-encoded before base64). */
export function parseBasicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]*)\s*$/i.exec(header);
  if (!m) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(m[1], 'base64'));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' ')),
    };
  } catch {
    return undefined;
  }
}
