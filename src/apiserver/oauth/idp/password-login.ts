// A sign-in with a password provider (LDAP), one code for both ways in: POST /oauth/login/{idp} and the sign-in page's
// form. The source and login are throttled as the password grant's are, a refused password is counted and recorded
// for the User of that name (as KubeSphere does), and the identity is mapped to its User.
import type { LoginRecorder } from '../../iam/loginrecords.ts';
import type { UserObject, Users } from '../../iam/users.ts';
import type { ClientInfo } from '../authenticator.ts';
import { OAuthError } from '../errors.ts';
import type { LdapIdentityProvider } from './ldap.ts';
import type { ProviderLoginThrottle } from './throttle.ts';
import type { IdentityMapper } from './user-mapping.ts';

export class PasswordProviderLogin {
  constructor(
    private readonly deps: {
      throttle: ProviderLoginThrottle;
      mapper: IdentityMapper;
      users: Users;
      recorder: LoginRecorder;
    },
  ) {}

  /** The User signed in as; throws an RFC 6749 error (invalid_grant 400, 429 throttled, 503 provider down). */
  async authenticate(
    provider: LdapIdentityProvider,
    login: string,
    password: string,
    client: ClientInfo,
  ): Promise<UserObject> {
    const { throttle, mapper, users, recorder } = this.deps;
    await throttle.check(provider.name, login, client.sourceIP);
    let identity: Awaited<ReturnType<LdapIdentityProvider['authenticate']>>;
    try {
      identity = await provider.authenticate(login, password);
    } catch (err) {
      if (err instanceof OAuthError && err.error === 'invalid_grant') {
        await throttle.failed(provider.name, login, client.sourceIP);
        const known = users.lookup(login);
        if (known) {
          recorder.record(known, {
            success: false,
            reason: err.message,
            type: 'Token',
            provider: provider.name,
            ...client,
          });
        }
      }
      throw err;
    }
    return mapper.userFor(provider.settings, identity);
  }
}
