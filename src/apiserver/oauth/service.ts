// The OAuth unit assembled over the given token store: clients, users (cache + admin bootstrap), login records, JWT
// key, ID-token signing key, the authorization flow, ClusterConfiguration watch (the user and login-record controllers run under the Lease, controllers/).
// `startOAuth` returns at once; `ready` resolves when logins can be served.
import type { Logger } from 'pino';
import type { AuthenticationOptions, KubeSphereConfig } from '../../config/index.ts';
import { KubeRest } from '../cluster/index.ts';
import type { BaseContext } from '../context.ts';
import { installCrds } from '../crds/index.ts';
import { LoginRecorder } from '../iam/loginrecords.ts';
import { Users } from '../iam/users.ts';
import { bootstrapAdmin } from '../iam/users-bootstrap.ts';
import type { UserInfo } from '../request.ts';
import { PasswordAuthenticator } from './authenticator.ts';
import { AuthorizationFlow, ID_TOKEN_MAX_TTL_MS } from './authorization-flow.ts';
import { BasicAuthenticator } from './basic.ts';
import { ClientRegistry } from './clients.ts';
import { type ClusterConfigurationWatch, watchClusterConfiguration } from './clusterconfig.ts';
import { IdentityProviderRegistry } from './idp/registry.ts';
import { InvalidTokenError, TokenIssuer, unverifiedClaims } from './jwt.ts';
import { resolveJwtSecret } from './jwtsecret.ts';
import { ServiceAccountTokens } from './serviceaccount-tokens.ts';
import { configuredKeyPem, resolveSigningKeys, type SigningKeys } from './signing-keys.ts';
import type { TokenStore } from './store/index.ts';
import { TokenService } from './tokens.ts';
import { VerifiedCredentials } from './verified-credentials.ts';

export interface OAuthService {
  clients: ClientRegistry;
  store: TokenStore;
  users: Users;
  recorder: LoginRecorder;
  /** Set once ready. */
  tokens?: TokenService;
  /** The ID-token signing key and the JWKS; set once ready. */
  keys?: SigningKeys;
  /** /oauth/authorize, the sign-in page and the code exchange (and the seam identity providers use). */
  flow: AuthorizationFlow;
  passwords: PasswordAuthenticator;
  /** Configured identity providers (LDAP, OIDC, GitHub), following configuration changes. */
  identityProviders: IdentityProviderRegistry;
  /** HTTP Basic credentials on API calls. */
  basic: BasicAuthenticator;
  /** Resolves when CRDs, the JWT key and the user cache are in place (rejects only on close). */
  ready: Promise<void>;
  isReady(): boolean;
  /** Effective authentication options (file, then ClusterConfiguration live). */
  options(): AuthenticationOptions;
  authenticateBearer(token: string): Promise<UserInfo>;
  close(): Promise<void>;
}

const RETRY_MS = 2000;
/** How long one start attempt waits for the user and ClusterConfiguration informers' first list. */
const SYNC_WAIT_MS = 60_000;

export function startOAuth(ctx: BaseContext, store: TokenStore): OAuthService {
  const logger: Logger = ctx.logger.child({ component: 'oauth' });
  const base: KubeSphereConfig = structuredClone(ctx.config.current());
  const rest = new KubeRest(ctx.cluster);
  const clients = new ClientRegistry(base.authentication.oauthOptions.clients);
  const options = () => ctx.config.current().authentication;
  const cache = ctx.cache;
  const users = new Users(rest, cache);
  const recorder = new LoginRecorder(rest, logger, (outcome, n) => ctx.metrics.loginRecords(outcome, n));
  const passwords = new PasswordAuthenticator(users, store, recorder, options, logger);
  // Throws at start-up naming the bad field of a provider entry.
  const identityProviders = new IdentityProviderRegistry(
    base.authentication.oauthOptions.identityProviders,
    logger,
  );
  const basic = new BasicAuthenticator(users, passwords, new VerifiedCredentials(store));
  const serviceAccountTokens = new ServiceAccountTokens(ctx.cluster);
  let ready = false;
  let closed = false;
  const watches: ClusterConfigurationWatch[] = [];

  let warned = false;
  const warnDefaultClient = () => {
    const now = clients.usesDefaultSecret();
    if (now && !warned) {
      logger.warn(
        'OAuth client "kubesphere" still has its well-known default secret: set authentication.oauthOptions.clients in kubesphere.yaml or the ClusterConfiguration',
      );
    }
    warned = now;
  };
  warnDefaultClient();
  let wildcardWarned = false;
  const warnWildcard = () => {
    const on = options().oauthOptions.allowWildcardRedirectURIs;
    if (on && !wildcardWarned) {
      logger.warn(
        'allowWildcardRedirectURIs is on: a client redirectURIs entry "*" lets /oauth/authorize send codes and tokens to any URL',
      );
    }
    wildcardWarned = on;
  };
  warnWildcard();
  const unsubscribe = ctx.config.onChange((next) => {
    clients.replace(next.authentication.oauthOptions.clients);
    identityProviders.replace(next.authentication.oauthOptions.identityProviders);
    warnDefaultClient();
    warnWildcard();
  });

  const flow = new AuthorizationFlow({
    store,
    users,
    clients,
    passwords,
    options,
    issuance: () =>
      service.tokens && service.keys ? { tokens: service.tokens, keys: service.keys } : undefined,
  });
  const service: OAuthService = {
    flow,
    clients,
    store,
    users,
    recorder,
    passwords,
    identityProviders,
    basic,
    ready: Promise.resolve(),
    isReady: () => ready,
    options,
    async authenticateBearer(token) {
      const tokens = service.tokens;
      if (!tokens) throw new Error('oauth is not ready');
      try {
        return await tokens.authenticate(token);
      } catch (err) {
        // Not kapiserver's: perhaps a service account's. What is or claims to be kapiserver's never leaves it.
        if (!(err instanceof InvalidTokenError) || !options().serviceAccountTokens) throw err;
        const claims = unverifiedClaims(token); // decoded once for both checks
        if (tokens.isOwn(token, claims)) throw err;
        return serviceAccountTokens.authenticate(token, claims);
      }
    },
    async close() {
      closed = true;
      for (const w of watches) w.close();
      unsubscribe();
      await identityProviders.close();
      await recorder.close();
      await store.close();
    },
  };

  const init = async () => {
    await installCrds(rest, logger);
    const secret = await resolveJwtSecret(base.authentication.jwtSecret, rest, logger);
    const issuer = new TokenIssuer({
      secret,
      issuer: () => options().oauthOptions.issuer,
      clockSkewMs: () => options().maximumClockSkew,
    });
    service.keys = await resolveSigningKeys(
      configuredKeyPem(base.authentication.oauthOptions),
      rest,
      logger,
      ID_TOKEN_MAX_TTL_MS + base.authentication.maximumClockSkew,
    );
    service.tokens = new TokenService(issuer, store, users, options);
    if (!(await users.start().waitForSync(SYNC_WAIT_MS)))
      throw new Error('the user cache has not synced yet');
    await bootstrapAdmin(users, rest, logger, {
      configuredPassword: base.authentication.adminPassword,
      dataDir: ctx.dataDir,
    });
    const cc = watchClusterConfiguration(cache, base, (next) => ctx.config.set(next), logger);
    watches.push(cc);
    if (!(await cc.synced(SYNC_WAIT_MS)))
      throw new Error('the ClusterConfiguration cache has not synced yet');
  };

  service.ready = (async () => {
    for (;;) {
      try {
        await init();
        ready = true;
        return;
      } catch (err) {
        if (closed) throw new Error('closed');
        // An unreachable orchestrator is reported by its own probe, once per interval.
        logger[ctx.cluster.isReachable ? 'warn' : 'debug'](
          { err: (err as Error).message },
          'token issuance not ready yet; retrying',
        );
        for (const w of watches.splice(0)) w.close();
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
        if (closed) throw new Error('closed');
      }
    }
  })();
  service.ready.catch(() => {});
  return service;
}
