// Login helpers for tests: a real POST /oauth/token against a running stack (no shortcuts).
import { ClusterConnection, KubeRest } from '../../src/apiserver/cluster/index.ts';
import type { TestStack } from './stack.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  expires_in: number;
}

export const TEST_CLIENT = { id: 'kubesphere', secret: 'kubesphere' };

/** POST /oauth/token with a form body; returns status, headers and parsed JSON body. */
export async function postToken(
  baseUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/**
 * Logs in with the password grant (default: the stack's `admin`) and returns the token response; throws with the
 * RFC 6749 error when the login fails. Client defaults to KubeSphere's default client.
 */
export async function login(
  stack: Pick<TestStack, 'url' | 'adminPassword'>,
  username = 'admin',
  password = stack.adminPassword,
  client = TEST_CLIENT,
): Promise<TokenResponse> {
  const r = await postToken(stack.url, {
    grant_type: 'password',
    username,
    password,
    client_id: client.id,
    client_secret: client.secret,
  });
  if (r.status !== 200) throw new Error(`login as ${username} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as unknown as TokenResponse;
}

/** `{ authorization: 'Bearer …' }` for fetch/undici calls. */
export function bearer(token: string | TokenResponse): Record<string, string> {
  return { authorization: `Bearer ${typeof token === 'string' ? token : token.access_token}` };
}

/** A client for the stack's dev cluster (admin rights), for arranging users and reading what kapiserver wrote. */
export function devRest(stack: Pick<TestStack, 'dev'>): KubeRest {
  return new KubeRest(ClusterConnection.fromFile(stack.dev.kubeconfigPath));
}

const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Creates a User with a plaintext password (as `kubectl apply` would) and waits until kapiserver's controller has
 * hashed it and a login works. Extra spec/status fields are merged in.
 */
export async function createUser(
  stack: Pick<TestStack, 'dev' | 'url' | 'adminPassword'>,
  name: string,
  password: string,
  extra: { spec?: Record<string, unknown>; status?: Record<string, unknown> } = {},
): Promise<void> {
  const rest = devRest(stack);
  await rest.create(USERS, {
    apiVersion: 'iam.kubesphere.io/v1alpha2',
    kind: 'User',
    metadata: { name },
    spec: { email: `${name}@example.com`, password, ...extra.spec },
    ...(extra.status ? { status: extra.status } : {}),
  });
  await eventually(
    async () => {
      const u = await rest.get<{ spec: { password: string } }>(`${USERS}/${name}`);
      return u.spec.password.startsWith('$2');
    },
    15_000,
    `user ${name} to be hashed`,
  );
  // The hashed version reaches kapiserver's cache through its watch a moment later.
  await eventually(
    async () => {
      const r = await postToken(stack.url, {
        grant_type: 'password',
        username: name,
        password,
        client_id: TEST_CLIENT.id,
        client_secret: TEST_CLIENT.secret,
      });
      return r.status === 200 || (r.status === 400 && r.body.error_description === 'account is not active');
    },
    15_000,
    `user ${name} to be able to log in`,
  );
}
