// A client of Prometheus' HTTP API (/api/v1/query and /api/v1/query_range, POSTed as a form like client_golang does),
// with a timeout per query, a bound on concurrent queries and on the size of an answer. A failure is an Error whose
// message is what the metric's `error` says: never the endpoint's credentials.
import { Limiter } from './limiter.ts';

export interface Series {
  metric: Record<string, string>;
  /** [unix seconds, value as Prometheus formats it] of an instant query. */
  value?: [number, string];
  values?: [number, string][];
}

export interface QueryData {
  resultType: 'vector' | 'matrix';
  result: Series[];
}

export interface PrometheusOptions {
  /** Per query, from the request (including any wait for a slot) to the last byte of the answer. */
  timeoutMs: number;
  /** Queries in flight at once, across all requests. */
  concurrency: number;
  /** Largest answer read, in bytes. */
  maxResponseBytes: number;
}

export const DEFAULT_PROMETHEUS_OPTIONS: PrometheusOptions = {
  timeoutMs: 30_000,
  concurrency: 16,
  maxResponseBytes: 32 * 1024 * 1024,
};

export class PrometheusClient {
  private readonly base: string;
  private readonly authorization?: string;
  private readonly limiter: Limiter;

  /** `endpoint`: the base URL; `user:password@` in it becomes Basic authentication (fetch refuses it in a URL). */
  constructor(
    endpoint: string,
    private readonly options: PrometheusOptions = DEFAULT_PROMETHEUS_OPTIONS,
  ) {
    const url = new URL(endpoint);
    if (url.username || url.password) {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    this.base = url.toString().replace(/\/+$/, '');
    this.limiter = new Limiter(options.concurrency);
  }

  query(expr: string, time: number): Promise<QueryData> {
    return this.call('/api/v1/query', { query: expr, time: String(time) }, 'vector');
  }

  queryRange(expr: string, start: number, end: number, step: number): Promise<QueryData> {
    const form = { query: expr, start: String(start), end: String(end), step: String(step) };
    return this.call('/api/v1/query_range', form, 'matrix');
  }

  private call(path: string, form: Record<string, string>, expected: QueryData['resultType']) {
    const url = `${this.base}${path}`;
    // The timeout counts from the request, so time spent waiting for a slot is part of it: no page waits longer.
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    return this.limiter.run(async () => {
      let text: string;
      let status: number;
      try {
        signal.throwIfAborted();
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(this.authorization ? { authorization: this.authorization } : {}),
          },
          body: new URLSearchParams(form).toString(),
          redirect: 'error',
          signal,
        });
        status = res.status;
        text = await readCapped(res, this.options.maxResponseBytes);
      } catch (err) {
        throw new Error(`Post "${url}": ${describe(err, this.options.timeoutMs)}`);
      }
      return parseAnswer(text, status, expected);
    });
  }
}

async function readCapped(res: Response, max: number): Promise<string> {
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > max) throw new Error(`the answer is larger than ${max} bytes`);
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000}s`;
  return e.cause?.message ?? e.cause?.code ?? e.message ?? String(err);
}

/** Prometheus' envelope: `{status: success, data}` or `{status: error, errorType, error}`, as client_golang reads it. */
function parseAnswer(text: string, status: number, expected: QueryData['resultType']): QueryData {
  let body: { status?: string; data?: QueryData; errorType?: string; error?: string };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`server returned HTTP status ${status} with a body that is not Prometheus' JSON`);
  }
  if (body.status === 'error') throw new Error(`${body.errorType ?? 'error'}: ${body.error ?? ''}`);
  const data = body.data;
  if (status !== 200 || body.status !== 'success' || !data || !Array.isArray(data.result)) {
    throw new Error(`server returned HTTP status ${status}`);
  }
  // A scalar or string answer has no series; KubeSphere reads it as an empty vector or matrix.
  if (data.resultType !== expected) return { resultType: expected, result: [] };
  return data;
}
