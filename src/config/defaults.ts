import type { KubeSphereConfig, OAuthClient } from './types.ts';

/** KubeSphere's well-known default client (`kubesphere`/`kubesphere`), kept for compatibility; start-up warns while unchanged. */
export const DEFAULT_CLIENT_ID = 'kubesphere';
export const DEFAULT_CLIENT_SECRET = 'kubesphere';

export function defaultClient(): OAuthClient {
  return {
    name: DEFAULT_CLIENT_ID,
    secret: DEFAULT_CLIENT_SECRET,
    redirectURIs: ['*'],
    grantMethod: 'auto',
    respondWithChallenges: false,
    scopeRestrictions: ['full'],
  };
}

/** Defaults follow the KubeSphere Helm chart, which is what a v3 install runs with. */
export function defaultConfig(): KubeSphereConfig {
  return {
    authentication: {
      authenticateRateLimiterMaxTries: 10,
      authenticateRateLimiterDuration: 10 * 60_000,
      loginHistoryRetentionPeriod: 168 * 3_600_000,
      loginHistoryMaximumEntries: 100,
      maximumClockSkew: 10_000,
      multipleLogin: true,
      jwtSecret: '',
      adminPassword: '',
      oauthOptions: {
        issuer: 'kubesphere',
        accessTokenMaxAge: 2 * 3_600_000,
        accessTokenInactivityTimeout: 2 * 3_600_000,
        clients: [defaultClient()],
        identityProviders: [],
      },
    },
    authorization: { mode: 'RBAC' },
    auditing: {
      enable: false,
      logPath: '',
      webhookUrl: '',
      eventSendersNum: 3,
      eventBatchSize: 100,
      eventBatchInterval: 3000,
    },
  };
}
