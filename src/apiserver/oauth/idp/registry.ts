// The configured identity providers, by name, built from `authentication.oauthOptions.identityProviders` and
// replaced whole when the configuration changes (a ClusterConfiguration edit). A bad entry at start-up is an error
// naming its field; a bad live change is logged and the providers in force are kept.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { IdentityProvider as IdentityProviderConfig } from '../../../config/index.ts';
import { GitHubIdentityProvider } from './github.ts';
import { LdapIdentityProvider } from './ldap.ts';
import { OidcIdentityProvider } from './oidc.ts';
import { type ProviderSettings, parseProviders } from './settings.ts';

export type IdentityProvider = LdapIdentityProvider | OidcIdentityProvider | GitHubIdentityProvider;
export type RedirectIdentityProvider = OidcIdentityProvider | GitHubIdentityProvider;

/** What may be shown about a provider (a sign-in page's buttons): never its settings. */
export interface ProviderSummary {
  name: string;
  type: ProviderSettings['type'];
  /** password: POST /oauth/login/{name} with username and password; redirect: GET /oauth/login/{name}. */
  kind: IdentityProvider['kind'];
}

function build(settings: ProviderSettings): IdentityProvider {
  switch (settings.type) {
    case 'LDAPIdentityProvider':
      return new LdapIdentityProvider(settings);
    case 'OIDCIdentityProvider':
      return new OidcIdentityProvider(settings);
    case 'GitHubIdentityProvider':
      return new GitHubIdentityProvider(settings);
  }
}

export class IdentityProviderRegistry {
  private providers = new Map<string, IdentityProvider>();
  private current: string;

  /** Throws ProviderSettingsError naming the first bad field. */
  constructor(
    entries: readonly IdentityProviderConfig[],
    private readonly logger: Logger,
    private readonly readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
  ) {
    this.providers = this.parse(entries);
    this.current = JSON.stringify(entries);
  }

  private parse(entries: readonly IdentityProviderConfig[]): Map<string, IdentityProvider> {
    const { providers, unsupported } = parseProviders(entries, this.readFile);
    if (unsupported.length > 0) {
      this.logger.warn(
        { providers: unsupported },
        'identity providers of these types are not served by kapiserver',
      );
    }
    return new Map(providers.map((s) => [s.name, build(s)]));
  }

  /** Swaps every provider at once; a bad configuration is logged (field named) and the current providers stay. */
  replace(entries: readonly IdentityProviderConfig[]): void {
    const json = JSON.stringify(entries);
    if (json === this.current) return;
    let next: Map<string, IdentityProvider>;
    try {
      next = this.parse(entries);
    } catch (err) {
      this.logger.error(
        { err: (err as Error).message },
        'identity providers unchanged: the new configuration is invalid',
      );
      return;
    }
    const old = this.providers;
    this.providers = next;
    this.current = json;
    for (const p of old.values()) if (p.kind === 'redirect') void p.close();
  }

  get(name: string): IdentityProvider | undefined {
    return this.providers.get(name);
  }

  list(): ProviderSummary[] {
    return [...this.providers.values()].map((p) => ({ name: p.name, type: p.settings.type, kind: p.kind }));
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.providers.values()].map((p) => (p.kind === 'redirect' ? p.close() : undefined)),
    );
  }
}
