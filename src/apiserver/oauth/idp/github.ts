// GitHub's OAuth web flow (redirect provider): authorize, access_token (JSON), GET /user, and GET /user/emails when
// the profile's e-mail is private. The endpoints are configurable (GitHub Enterprise, or a local server in tests).
// The identity's uid is GitHub's numeric account id, not the login KubeSphere uses: a login can be renamed and then
// claimed by someone else, who would inherit the mapped account.
import { type ExternalIdentity, providerRefused } from './identity.ts';
import { type RedirectFinish, type RedirectStart, upstreamError } from './oidc.ts';
import type { GitHubSettings } from './settings.ts';
import { record, UpstreamHttp } from './upstream-http.ts';

export class GitHubIdentityProvider {
  readonly kind = 'redirect' as const;
  private readonly http: UpstreamHttp;

  constructor(readonly settings: GitHubSettings) {
    this.http = new UpstreamHttp(settings.name, settings.timeoutMs, settings.insecureSkipVerify);
  }

  get name(): string {
    return this.settings.name;
  }

  async authorizeURL(start: RedirectStart): Promise<string> {
    const s = this.settings;
    const url = new URL(s.endpoint.authURL);
    url.searchParams.set('client_id', s.clientID);
    url.searchParams.set('redirect_uri', s.redirectURL);
    url.searchParams.set('scope', s.scopes.join(' '));
    url.searchParams.set('state', start.state);
    url.searchParams.set('code_challenge', start.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('allow_signup', 'false');
    return url.toString();
  }

  async finish(f: RedirectFinish): Promise<ExternalIdentity> {
    const s = this.settings;
    const refusal = upstreamError(s.name, f.query);
    if (refusal) throw refusal;
    if (!f.query.code) throw providerRefused('the callback carries no code', 400);
    // GitHub answers its errors with 200 and an `error` field.
    const exchanged = await this.http.postForm(s.endpoint.tokenURL, {
      client_id: s.clientID,
      client_secret: s.clientSecret,
      code: f.query.code,
      redirect_uri: s.redirectURL,
      code_verifier: f.codeVerifier,
    });
    const token = record(exchanged.body);
    if (exchanged.status !== 200 || !token || typeof token.access_token !== 'string' || token.error) {
      const code = typeof token?.error === 'string' ? `: ${token.error.slice(0, 64)}` : '';
      throw providerRefused(`the identity provider "${s.name}" did not exchange the code${code}`);
    }
    const auth = { authorization: `Bearer ${token.access_token}` };
    const profile = await this.http.get(s.endpoint.userInfoURL, auth);
    const user = record(profile.body);
    const id = user?.id;
    const login = user?.login;
    if (
      profile.status !== 200 ||
      (typeof id !== 'number' && typeof id !== 'string') ||
      typeof login !== 'string' ||
      !login
    ) {
      throw providerRefused(`the identity provider "${s.name}" did not describe the user`);
    }
    const email = typeof user?.email === 'string' && user.email ? user.email : await this.primaryEmail(auth);
    return { uid: String(id), username: login, email };
  }

  /** The primary verified address from /user/emails (needs the user:email scope); '' when none is readable. */
  private async primaryEmail(auth: Record<string, string>): Promise<string> {
    const { status, body } = await this.http.get(
      `${this.settings.endpoint.userInfoURL.replace(/\/$/, '')}/emails`,
      auth,
    );
    if (status !== 200 || !Array.isArray(body)) return '';
    const primary = body.map(record).find((e) => e?.primary === true && e.verified === true);
    return typeof primary?.email === 'string' ? primary.email : '';
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
