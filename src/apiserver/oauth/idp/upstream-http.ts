// HTTP to an upstream identity provider (OIDC, GitHub): JSON only, a bounded time per call, TLS verified unless the
// operator set insecureSkipVerify, bodies capped. A failure to reach or read the upstream is 503 (providerUnavailable);
// an upstream's own error answer is passed to the caller to judge.
import { Agent, fetch } from 'undici';
import { providerUnavailable } from './identity.ts';

/** Token, user-info, discovery and key-set documents are small; anything larger is not one. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface UpstreamResponse {
  status: number;
  body: unknown;
}

export class UpstreamHttp {
  /** Also for the key-set fetches jose makes (same TLS settings and timeouts). */
  readonly dispatcher: Agent;

  constructor(
    private readonly provider: string,
    private readonly timeoutMs: number,
    insecureSkipVerify: boolean,
  ) {
    this.dispatcher = new Agent({
      connect: { rejectUnauthorized: !insecureSkipVerify, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  get(url: string, headers: Record<string, string> = {}): Promise<UpstreamResponse> {
    return this.request(url, { method: 'GET', headers });
  }

  postForm(
    url: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<UpstreamResponse> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  private async request(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<UpstreamResponse> {
    try {
      const res = await fetch(url, {
        ...init,
        headers: { accept: 'application/json', ...init.headers },
        redirect: 'error',
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await readCapped(res.body, MAX_BODY_BYTES);
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: res.status, body };
    } catch (err) {
      throw providerUnavailable(this.provider, err);
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

async function readCapped(body: AsyncIterable<Uint8Array> | null, max: number): Promise<string> {
  if (!body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > max) throw new Error(`upstream answer larger than ${max} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The object `v` as a string-keyed record, or undefined. */
export function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}
