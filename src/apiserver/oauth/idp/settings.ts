// Typed settings of `authentication.oauthOptions.identityProviders[]`, read as KubeSphere reads them (mapstructure:
// provider keys match case-insensitively). A bad entry is an error naming its field; secret values never appear in
// one. Which types kapiserver serves: LDAP (password), OIDC and GitHub (redirect).
import type { IdentityProvider } from '../../../config/index.ts';

export type MappingMethod = 'auto' | 'lookup';

interface Common {
  name: string;
  mappingMethod: MappingMethod;
}

export type LdapTransport = 'plain' | 'ldaps' | 'starttls';

export interface LdapSettings extends Common {
  type: 'LDAPIdentityProvider';
  /** ldap://host:port or ldaps://host:port. */
  url: string;
  transport: LdapTransport;
  timeoutMs: number;
  insecureSkipVerify: boolean;
  /** PEM text of the CA(s) to trust (rootCA file or rootCAData); undefined: the system's. */
  ca?: string;
  managerDN: string;
  managerPassword: string;
  userSearchBase: string;
  userSearchFilter: string;
  loginAttribute: string;
  mailAttribute: string;
  groupSearchBase: string;
  groupSearchFilter: string;
  /** Attribute of a group entry listing member DNs (groupOfNames: member). */
  groupMemberAttribute: string;
  /** Attribute of a user entry listing its groups' DNs (memberOf); '' when not used. */
  userMemberAttribute: string;
  groupNameAttribute: string;
}

export interface OAuthEndpoints {
  authURL: string;
  tokenURL: string;
  userInfoURL: string;
  jwksURL: string;
}

export interface OidcSettings extends Common {
  type: 'OIDCIdentityProvider';
  issuer: string;
  clientID: string;
  clientSecret: string;
  /** Configured endpoints; discovery (when issuer is set) fills the empty ones. */
  endpoint: OAuthEndpoints;
  redirectURL: string;
  scopes: string[];
  getUserInfo: boolean;
  insecureSkipVerify: boolean;
  emailKey: string;
  preferredUsernameKey: string;
  timeoutMs: number;
}

export interface GitHubSettings extends Common {
  type: 'GitHubIdentityProvider';
  clientID: string;
  clientSecret: string;
  endpoint: Omit<OAuthEndpoints, 'jwksURL'>;
  redirectURL: string;
  scopes: string[];
  insecureSkipVerify: boolean;
  timeoutMs: number;
}

export type ProviderSettings = LdapSettings | OidcSettings | GitHubSettings;

export const SUPPORTED_TYPES = [
  'LDAPIdentityProvider',
  'OIDCIdentityProvider',
  'GitHubIdentityProvider',
] as const;

/** A configuration error; the message names the field (never a secret value). */
export class ProviderSettingsError extends Error {
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'ProviderSettingsError';
  }
}

const DEFAULT_LDAP_TIMEOUT_MS = 15_000;
const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const GITHUB_ENDPOINTS = {
  authURL: 'https://github.com/login/oauth/authorize',
  tokenURL: 'https://github.com/login/oauth/access_token',
  userInfoURL: 'https://api.github.com/user',
};
/** An LDAP attribute description (RFC 4512 descr or numeric OID): safe to place in a filter as is. */
const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

/** Case-insensitive reader over one settings map, naming fields by their path for errors. */
class Fields {
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly map: Record<string, unknown>,
    readonly path: string,
  ) {
    for (const k of Object.keys(map)) this.keys.set(k.toLowerCase(), k);
  }

  raw(name: string): unknown {
    const k = this.keys.get(name.toLowerCase());
    return k === undefined ? undefined : this.map[k];
  }

  field(name: string): string {
    return `${this.path}.${name}`;
  }

  string(name: string, fallback?: string): string {
    const v = this.raw(name);
    if (v === undefined || v === null || v === '') {
      if (fallback !== undefined) return fallback;
      throw new ProviderSettingsError(this.field(name), 'is required');
    }
    if (typeof v !== 'string') throw new ProviderSettingsError(this.field(name), 'must be a string');
    return v;
  }

  url(name: string, fallback?: string): string {
    const v = this.string(name, fallback);
    if (v === '') return v;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new ProviderSettingsError(this.field(name), 'must be an absolute http(s) URL');
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') {
      throw new ProviderSettingsError(this.field(name), 'must be an absolute http(s) URL');
    }
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw(name);
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw new ProviderSettingsError(this.field(name), 'must be true or false');
    return v;
  }

  positiveInt(name: string, fallback: number): number {
    const v = this.raw(name);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new ProviderSettingsError(this.field(name), 'must be a positive whole number');
    }
    return v;
  }

  strings(name: string, fallback: string[]): string[] {
    const v = this.raw(name);
    if (v === undefined || v === null) return fallback;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      throw new ProviderSettingsError(this.field(name), 'must be a list of strings');
    }
    return v as string[];
  }

  attribute(name: string, fallback: string): string {
    const v = this.string(name, fallback);
    if (v && !ATTRIBUTE.test(v))
      throw new ProviderSettingsError(this.field(name), 'is not an LDAP attribute name');
    return v;
  }

  filter(name: string): string {
    const v = this.string(name, '');
    if (v && !isBalancedFilter(v)) {
      throw new ProviderSettingsError(
        this.field(name),
        'must be an LDAP filter in parentheses, e.g. (objectClass=person)',
      );
    }
    return v;
  }

  nested(name: string): Fields {
    const v = this.raw(name);
    if (v === undefined || v === null) return new Fields({}, this.field(name));
    if (typeof v !== 'object' || Array.isArray(v))
      throw new ProviderSettingsError(this.field(name), 'must be a map');
    return new Fields(v as Record<string, unknown>, this.field(name));
  }
}

/** One parenthesised filter (or several in a row), parentheses balanced outside escapes: it cannot end the AND early. */
function isBalancedFilter(f: string): boolean {
  if (!f.startsWith('(') || !f.endsWith(')')) return false;
  let depth = 0;
  for (const c of f) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

function ldapEndpoint(f: Fields): { url: string; transport: LdapTransport } {
  const host = f.string('host');
  const startTLS = f.bool('startTLS');
  const scheme = /^(ldaps?):\/\//i.exec(host)?.[1]?.toLowerCase();
  const hostPort = scheme ? host.slice(scheme.length + 3).replace(/\/$/, '') : host;
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(hostPort)) {
    throw new ProviderSettingsError(
      f.field('host'),
      'must be host:port, ldap://host:port or ldaps://host:port',
    );
  }
  if (scheme === 'ldaps') {
    if (startTLS) {
      throw new ProviderSettingsError(
        f.field('startTLS'),
        'cannot be combined with an ldaps:// host (already TLS)',
      );
    }
    return { url: `ldaps://${hostPort}`, transport: 'ldaps' };
  }
  const port = /:(\d+)$/.exec(hostPort)?.[1];
  if (startTLS && port === '636') {
    // KubeSphere's startTLS dialled LDAPS; here it is the StartTLS operation (RFC 4513), which port 636 never speaks.
    throw new ProviderSettingsError(
      f.field('startTLS'),
      'means the StartTLS operation on a plain LDAP port; for LDAPS (what KubeSphere called startTLS) write host: ldaps://<host>:636',
    );
  }
  return { url: `ldap://${hostPort}`, transport: startTLS ? 'starttls' : 'plain' };
}

function ldapCa(f: Fields, readFile: (path: string) => string): string | undefined {
  const data = f.string('rootCAData', '');
  if (data) {
    const pem = Buffer.from(data, 'base64').toString('utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ProviderSettingsError(f.field('rootCAData'), 'must be base64 of PEM certificates');
    }
    return pem;
  }
  const file = f.string('rootCA', '');
  if (!file) return undefined;
  try {
    return readFile(file);
  } catch (err) {
    throw new ProviderSettingsError(
      f.field('rootCA'),
      `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function ldapSettings(common: Common, f: Fields, readFile: (path: string) => string): LdapSettings {
  return {
    ...common,
    type: 'LDAPIdentityProvider',
    ...ldapEndpoint(f),
    timeoutMs: f.positiveInt('readTimeout', DEFAULT_LDAP_TIMEOUT_MS),
    insecureSkipVerify: f.bool('insecureSkipVerify'),
    ca: ldapCa(f, readFile),
    managerDN: f.string('managerDN'),
    managerPassword: f.string('managerPassword'),
    userSearchBase: f.string('userSearchBase'),
    userSearchFilter: f.filter('userSearchFilter'),
    loginAttribute: f.attribute('loginAttribute', 'uid'),
    mailAttribute: f.attribute('mailAttribute', 'mail'),
    groupSearchBase: f.string('groupSearchBase', ''),
    groupSearchFilter: f.filter('groupSearchFilter'),
    groupMemberAttribute: f.attribute('groupMemberAttribute', 'member'),
    userMemberAttribute: f.attribute('userMemberAttribute', ''),
    groupNameAttribute: f.attribute('groupNameAttribute', 'cn'),
  };
}

function oidcSettings(common: Common, f: Fields): OidcSettings {
  const e = f.nested('endpoint');
  const issuer = f.url('issuer', '');
  const endpoint = {
    authURL: e.url('authURL', ''),
    tokenURL: e.url('tokenURL', ''),
    userInfoURL: e.url('userInfoURL', ''),
    jwksURL: e.url('jwksURL', ''),
  };
  // KubeSphere only parses the ID token when there is no issuer; here it is always verified, so keys must be known.
  if (!issuer) {
    for (const k of ['authURL', 'tokenURL', 'jwksURL'] as const) {
      if (!endpoint[k])
        throw new ProviderSettingsError(e.field(k), 'is required when issuer is not set (no discovery)');
    }
  }
  return {
    ...common,
    type: 'OIDCIdentityProvider',
    issuer,
    clientID: f.string('clientID'),
    clientSecret: f.string('clientSecret'),
    endpoint,
    redirectURL: f.url('redirectURL'),
    scopes: f.strings('scopes', []),
    getUserInfo: f.bool('getUserInfo'),
    insecureSkipVerify: f.bool('insecureSkipVerify'),
    emailKey: f.string('emailKey', 'email'),
    preferredUsernameKey: f.string('preferredUsernameKey', 'preferred_username'),
    timeoutMs: f.positiveInt('timeout', DEFAULT_HTTP_TIMEOUT_MS),
  };
}

function githubSettings(common: Common, f: Fields): GitHubSettings {
  const e = f.nested('endpoint');
  return {
    ...common,
    type: 'GitHubIdentityProvider',
    clientID: f.string('clientID'),
    clientSecret: f.string('clientSecret'),
    endpoint: {
      authURL: e.url('authURL', GITHUB_ENDPOINTS.authURL),
      tokenURL: e.url('tokenURL', GITHUB_ENDPOINTS.tokenURL),
      userInfoURL: e.url('userInfoURL', GITHUB_ENDPOINTS.userInfoURL),
    },
    redirectURL: f.url('redirectURL'),
    scopes: f.strings('scopes', ['user:email']),
    insecureSkipVerify: f.bool('insecureSkipVerify'),
    timeoutMs: f.positiveInt('timeout', DEFAULT_HTTP_TIMEOUT_MS),
  };
}

const PATH = 'authentication.oauthOptions.identityProviders';
/** Provider names appear in URL paths (/oauth/login/{name}) and in a label value. */
const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/**
 * The typed settings of every entry of a supported type; entries of other types are returned in `unsupported`
 * (KubeSphere's CAS, GitLab, IDaaS: accepted, not served). Throws ProviderSettingsError on the first bad field.
 */
export function parseProviders(
  entries: readonly IdentityProvider[],
  readFile: (path: string) => string,
): { providers: ProviderSettings[]; unsupported: string[] } {
  const providers: ProviderSettings[] = [];
  const unsupported: string[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const at = `${PATH}[${i}]`;
    if (!NAME.test(entry.name)) {
      throw new ProviderSettingsError(
        `${at}.name`,
        'must be 1-63 letters, digits, ".", "_" or "-", starting and ending with a letter or digit',
      );
    }
    if (seen.has(entry.name)) throw new ProviderSettingsError(`${at}.name`, `"${entry.name}" is used twice`);
    seen.add(entry.name);
    if (entry.mappingMethod !== 'auto' && entry.mappingMethod !== 'lookup') {
      throw new ProviderSettingsError(`${at}.mappingMethod`, 'must be auto or lookup');
    }
    const common: Common = { name: entry.name, mappingMethod: entry.mappingMethod };
    const f = new Fields(entry.provider ?? {}, `${at}.provider`);
    if (entry.type === 'LDAPIdentityProvider') providers.push(ldapSettings(common, f, readFile));
    else if (entry.type === 'OIDCIdentityProvider') providers.push(oidcSettings(common, f));
    else if (entry.type === 'GitHubIdentityProvider') providers.push(githubSettings(common, f));
    else unsupported.push(`${entry.name} (${entry.type})`);
  });
  return { providers, unsupported };
}
