// config.kubesphere.io/v1alpha2: the public OAuth configuration and the server configuration, with every secret
// removed (KubeSphere leaks identity-provider settings in configs/oauth; kapiserver does not).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { AuthenticationOptions } from '../../../config/index.ts';
import type { ServerContext } from '../../context.ts';
import { registerKapisRoute } from '../route.ts';
import { errors } from '../schemas.ts';

const BASE = '/config.kubesphere.io/v1alpha2';
const TAG = 'config.kubesphere.io/v1alpha2';

/** Keys whose values are secrets wherever they appear (client secrets, passwords, keys, tokens, certificates). */
const SECRET_KEY =
  /(secret|password|passwd|token|credentials?|keydata|privatekey|signkey|apikey|^key|certdata|bindpassword)$/i;

/** A deep copy without secret-named keys. */
export function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY.test(k)) continue;
      out[k] = scrub(v);
    }
    return out;
  }
  return value;
}

/** Go's time.Duration JSON form (nanoseconds), as KubeSphere serialises these fields. */
const ns = (ms: number) => ms * 1_000_000;

export function publicOAuthOptions(auth: AuthenticationOptions): Record<string, unknown> {
  const o = auth.oauthOptions;
  return {
    issuer: o.issuer,
    accessTokenMaxAge: ns(o.accessTokenMaxAge),
    accessTokenInactivityTimeout: ns(o.accessTokenInactivityTimeout),
    // Only what a login page needs to show the providers: no provider settings at all.
    identityProviders: o.identityProviders.map((p) => ({
      name: p.name,
      mappingMethod: p.mappingMethod,
      type: p.type,
    })),
    clients: o.clients.map((c) => ({
      name: c.name,
      grantMethod: c.grantMethod,
      respondWithChallenges: c.respondWithChallenges,
      redirectURIs: c.redirectURIs,
      scopeRestrictions: c.scopeRestrictions,
    })),
  };
}

const OAuthConfig = Type.Object(
  {
    issuer: Type.String(),
    accessTokenMaxAge: Type.Integer({ description: 'Nanoseconds (Go time.Duration)' }),
    accessTokenInactivityTimeout: Type.Integer({ description: 'Nanoseconds (Go time.Duration)' }),
    identityProviders: Type.Array(
      Type.Object({ name: Type.String(), mappingMethod: Type.String(), type: Type.String() }),
    ),
    clients: Type.Array(
      Type.Object({
        name: Type.String({ description: 'client_id' }),
        grantMethod: Type.String(),
        respondWithChallenges: Type.Boolean(),
        redirectURIs: Type.Array(Type.String()),
        scopeRestrictions: Type.Array(Type.String()),
      }),
    ),
  },
  {
    title: 'OAuthOptions',
    description: 'Public OAuth configuration: no client secrets, no provider settings',
  },
);

export function registerConfigRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const auth = () => ctx.oauth.options();
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/configs/oauth`,
    schema: {
      tags: [TAG],
      summary: 'The OAuth configuration (public parts)',
      operationId: 'GetOAuthConfiguration',
      response: { 200: OAuthConfig, ...errors() },
    },
    handler: async () => publicOAuthOptions(auth()),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/configs/configz`,
    schema: {
      tags: [TAG],
      summary: 'The server configuration (kubesphere.yaml sections), secrets removed',
      operationId: 'GetKubeSphereConfiguration',
      response: {
        200: Type.Object({}, { additionalProperties: true, description: 'Configuration sections' }),
        ...errors(),
      },
    },
    handler: async () => scrub({ ...ctx.config.current(), authentication: auth() }),
  });
}
