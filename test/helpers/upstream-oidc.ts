// A real OpenID Connect provider as kapiserver's upstream identity provider: the `oidc-provider` package (v8) on a
// loopback port, in the test process. Its development sign-in page accepts any login (the login becomes `sub` and
// `preferred_username`); consent is granted up front. `tamper` makes it misbehave: the next ID tokens it issues are
// re-signed with its own key after the given change (wrong audience, wrong nonce, expired), as a compromised or
// confused upstream would send them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

/** The little of oidc-provider's API used here (the package ships no type declarations). */
interface ProviderContext {
  path: string;
  body: unknown;
  oidc: {
    session?: { accountId?: string };
    client?: { clientId: string };
    provider: { Grant: new (o: { clientId: string; accountId: string }) => ProviderGrant };
  };
}
interface ProviderGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
type ProviderClass = new (
  issuer: string,
  config: Record<string, unknown>,
) => {
  use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
};
/** A variable, so the compiler does not look for the package's (missing) declarations. */
const OIDC_PROVIDER = 'oidc-provider';

export interface TestUpstreamOidc {
  issuer: string;
  clientID: string;
  clientSecret: string;
  /** Registers kapiserver's callback (known once kapiserver runs); must be called before the first sign-in. */
  start(redirectURL: string): Promise<void>;
  /** Every later ID token is changed by `change` (undefined: honest again). */
  tamper(change: ((claims: JWTPayload) => JWTPayload) | undefined): void;
  stop(): Promise<void>;
}

export async function startUpstreamOidc(): Promise<TestUpstreamOidc> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  let change: ((claims: JWTPayload) => JWTPayload) | undefined;
  const clientID = 'kapiserver';
  const clientSecret = 'upstream-Client-Secret-1';

  return {
    issuer,
    clientID,
    clientSecret,
    async start(redirectURL: string) {
      const { default: Provider } = (await import(OIDC_PROVIDER)) as { default: ProviderClass };
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientID,
            client_secret: clientSecret,
            redirect_uris: [redirectURL],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ['upstream-cookie-key'] },
        claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'] },
        // The requested claims go into the ID token itself (kapiserver reads them there).
        conformIdTokenClaims: false,
        findAccount: async (_ctx: unknown, id: string) => ({
          accountId: id,
          claims: async () => ({
            sub: id,
            preferred_username: id,
            name: id,
            email: `${id}@upstream.example`,
          }),
        }),
        // Consent is granted up front: the test is about kapiserver, not the upstream's consent page.
        loadExistingGrant: async (ctx: ProviderContext) => {
          const accountId = ctx.oidc.session?.accountId;
          const clientId = ctx.oidc.client?.clientId;
          if (!accountId || !clientId) return undefined;
          const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
          grant.addOIDCScope('openid profile email');
          await grant.save();
          return grant;
        },
      });
      provider.use(async (ctx: ProviderContext, next: () => Promise<void>) => {
        await next();
        const body = ctx.body as { id_token?: string } | undefined;
        if (change && ctx.path === '/token' && typeof body?.id_token === 'string') {
          const claims = change(decodeJwt(body.id_token));
          body.id_token = await new SignJWT(claims)
            .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
            .sign(privateKey);
        }
      });
      handler = provider.callback();
    },
    tamper(next) {
      change = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
