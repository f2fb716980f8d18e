// Test helpers for the aggregated APIs: a logged-in stack, calls to kapiserver, writes to the dev cluster over HTTP.
import { request } from 'undici';
import { login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

export interface KapisStack extends TestStack {
  token: string;
  /** GET/POST/... on kapiserver with the admin token; returns status and parsed JSON (or text). */
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }>;
  /** A write to the orchestrator (the dev cluster) with its own credentials. */
  kube(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
}

// biome-ignore lint/suspicious/noExplicitAny: test bodies are arbitrary JSON read by assertions
export type Json = any;

export async function startKapisStack(): Promise<KapisStack> {
  const stack = await startTestStack();
  const token = (await login(stack)).access_token;
  const cluster = stack.api.context.cluster;
  const parse = (text: string): Json => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  const call: KapisStack['call'] = async (method, path, body, tok = token) => {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: {
        ...(tok ? { authorization: `Bearer ${tok}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: parse(await res.text()) };
  };
  const kube: KapisStack['kube'] = async (method, path, body) => {
    const auth = cluster.authorization();
    const res = await request(`${cluster.server}${path}`, {
      method: method as 'GET',
      dispatcher: cluster.dispatcher,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        'content-type': 'application/json',
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, body: parse(await res.body.text()) };
  };
  return Object.assign(stack, { token, call, kube });
}

export async function until<T>(
  fn: () => Promise<T | undefined | false>,
  what: string,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
