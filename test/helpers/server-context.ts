// The context for tests of the server itself without an orchestrator: the real parts of detachedContext
// (src/apiserver/detached-context.ts), so requests meet real authentication and authorization. With `user`, the
// authenticator knows that one user by a bearer token the test sends (`token`) and no other token; without it, token
// issuance stays "starting" (no token: 401, a token: 503), as a server whose orchestrator does not answer.
import { randomBytes } from 'node:crypto';
import type { BaseContext } from '../../src/apiserver/context.ts';
import { type DetachedContext, detachedContext } from '../../src/apiserver/detached-context.ts';
import { InvalidTokenError } from '../../src/apiserver/oauth/index.ts';
import type { UserInfo } from '../../src/apiserver/request.ts';
import { defaultConfig, type KubeSphereConfig } from '../../src/config/index.ts';

/** A user for `user`; with authorization.mode AlwaysAllow it may do anything (e.g. read /metrics). */
export const TEST_USER: UserInfo = { name: 'tester', groups: ['system:authenticated'] };

export interface TestContextOptions
  extends Partial<Pick<BaseContext, 'dataDir' | 'readiness' | 'metrics' | 'audit'>> {
  config?: KubeSphereConfig;
  user?: UserInfo;
}

export function testServerContext(opts: TestContextOptions = {}): DetachedContext & { token: string } {
  const { config = defaultConfig(), user, ...parts } = opts;
  const detached = detachedContext(config, parts);
  const token = randomBytes(24).toString('base64url');
  if (user) {
    const { oauth } = detached.ctx;
    detached.ctx.oauth = {
      ...oauth,
      isReady: () => true,
      async authenticateBearer(bearer) {
        if (bearer !== token) throw new InvalidTokenError('token has been revoked or is unknown');
        return user;
      },
    };
  }
  return { ...detached, token };
}
