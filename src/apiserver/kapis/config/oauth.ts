// configs/oauth: the OAuth configuration the console's login page reads before anyone logs in (reference 7.2), in
// ks-apiserver's JSON shape: durations as Go time.Duration (integer nanoseconds), identity providers with their
// settings (the login page builds each provider's authorization URL from them). Never served: client secrets, the
// signing key's data, and any provider setting whose name says it is a secret (./../../../config/redact.ts).
import Type from 'typebox';
import type { OAuthOptions } from '../../../config/index.ts';
import { withoutSecrets } from '../../../config/redact.ts';

/** Go's time.Duration JSON form. */
const nanoseconds = (ms: number) => ms * 1_000_000;

export function publicOAuthOptions(o: OAuthOptions): Record<string, unknown> {
  return {
    issuer: o.issuer,
    // A file path, served by KubeSphere when configured; the key itself (signKeyData) never is.
    ...(o.signKey ? { signKey: o.signKey } : {}),
    identityProviders: o.identityProviders.map((p) => ({
      name: p.name,
      mappingMethod: p.mappingMethod,
      disableLoginConfirmation:
        (p as { disableLoginConfirmation?: boolean }).disableLoginConfirmation === true,
      type: p.type,
      provider: withoutSecrets(p.provider),
    })),
    clients: o.clients.map((c) => ({
      name: c.name,
      respondWithChallenges: c.respondWithChallenges,
      redirectURIs: c.redirectURIs,
      grantMethod: c.grantMethod,
      scopeRestrictions: c.scopeRestrictions,
      ...(c.accessTokenMaxAge === undefined ? {} : { accessTokenMaxAge: nanoseconds(c.accessTokenMaxAge) }),
      ...(c.accessTokenInactivityTimeout === undefined
        ? {}
        : { accessTokenInactivityTimeout: nanoseconds(c.accessTokenInactivityTimeout) }),
    })),
    accessTokenMaxAge: nanoseconds(o.accessTokenMaxAge),
    accessTokenInactivityTimeout: nanoseconds(o.accessTokenInactivityTimeout),
  };
}

const Nanoseconds = Type.Integer({ description: 'nanoseconds (Go time.Duration)' });

export const OAuthConfig = Type.Object(
  {
    issuer: Type.String(),
    signKey: Type.Optional(Type.String({ description: 'path of the ID-token signing key file' })),
    identityProviders: Type.Array(
      Type.Object({
        name: Type.String({ description: 'the state parameter of the provider’s login URL' }),
        mappingMethod: Type.String(),
        disableLoginConfirmation: Type.Boolean(),
        type: Type.String(),
        provider: Type.Object(
          {},
          {
            additionalProperties: true,
            description: 'provider settings (clientID, endpoint, redirectURL, scopes ...) without any secret',
          },
        ),
      }),
    ),
    clients: Type.Array(
      Type.Object({
        name: Type.String({ description: 'client_id' }),
        respondWithChallenges: Type.Boolean(),
        redirectURIs: Type.Array(Type.String()),
        grantMethod: Type.String(),
        scopeRestrictions: Type.Array(Type.String()),
        accessTokenMaxAge: Type.Optional(Nanoseconds),
        accessTokenInactivityTimeout: Type.Optional(Nanoseconds),
      }),
    ),
    accessTokenMaxAge: Nanoseconds,
    accessTokenInactivityTimeout: Nanoseconds,
  },
  {
    title: 'OAuthOptions',
    description: 'The OAuth configuration without client secrets, key data or provider secrets',
  },
);
