// LDAP password provider: bind as the manager, find the user under userSearchBase by the login attribute (the name
// escaped per RFC 4515, so filter metacharacters are data), bind as the found entry with the given password, read
// its mail and groups. One connection per login, every operation bounded by readTimeout.
import type { ConnectionOptions } from 'node:tls';
import { Client, type Entry, InvalidCredentialsError, ResultCodeError, SizeLimitExceededError } from 'ldapts';
import { DESCRIPTIONS, OAuthError } from '../errors.ts';
import {
  type ExternalIdentity,
  providerMisconfigured,
  providerRefused,
  providerUnavailable,
} from './identity.ts';
import type { LdapSettings } from './settings.ts';

/** RFC 4515 section 3: `*`, `(`, `)`, `\` and NUL as \XX escapes; everything else is literal. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A wrong password or an unknown or ambiguous login: one answer, as the local password grant gives. */
const refused = () => providerRefused(DESCRIPTIONS.incorrectPassword, 400);

function firstValue(entry: Entry, attribute: string): string {
  if (!attribute) return '';
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const v = key === undefined ? undefined : entry[key];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : Buffer.isBuffer(first) ? first.toString('utf8') : '';
}

function allValues(entry: Entry, attribute: string): string[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const v = key === undefined ? [] : entry[key];
  return (Array.isArray(v) ? v : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

/** The value of a DN's first RDN (`cn=dev,ou=groups,...` -> `dev`), unescaped of simple `\,` style escapes. */
function rdnValue(dn: string): string {
  const m = /^[^=]+=((?:\\.|[^,+])*)/.exec(dn);
  return m ? m[1].replace(/\\(.)/g, '$1').trim() : '';
}

const sameDnSuffix = (dn: string, base: string) =>
  dn.toLowerCase().replace(/\s+/g, '').endsWith(base.toLowerCase().replace(/\s+/g, ''));

export class LdapIdentityProvider {
  readonly kind = 'password' as const;

  constructor(readonly settings: LdapSettings) {}

  get name(): string {
    return this.settings.name;
  }

  private tlsOptions(): ConnectionOptions {
    const host = new URL(this.settings.url.replace(/^ldaps?:/, 'http:')).hostname.replace(/^\[|\]$/g, '');
    return {
      rejectUnauthorized: !this.settings.insecureSkipVerify,
      ...(this.settings.ca ? { ca: this.settings.ca } : {}),
      servername: /^[\d.]+$|:/.test(host) ? undefined : host,
    };
  }

  /** The identity behind login/password, or throws invalid_grant (refused) or 503 (server down or slow). */
  async authenticate(login: string, password: string): Promise<ExternalIdentity> {
    // An empty password would be an unauthenticated bind, which LDAP servers accept (RFC 4513 5.1.2).
    if (!login || !password) throw refused();
    const s = this.settings;
    const client = new Client({
      url: s.url,
      timeout: s.timeoutMs,
      connectTimeout: s.timeoutMs,
      tlsOptions: s.transport === 'ldaps' ? this.tlsOptions() : undefined,
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // The whole exchange is bounded too: several slow answers must not add up past what a client waits for.
      timer = setTimeout(() => reject(providerUnavailable(s.name)), s.timeoutMs * 2);
    });
    try {
      return await Promise.race([this.exchange(client, login, password), deadline]);
    } catch (err) {
      if (err instanceof OAuthError) throw err;
      throw providerUnavailable(s.name, err);
    } finally {
      clearTimeout(timer);
      client.unbind().catch(() => {});
    }
  }

  private async exchange(client: Client, login: string, password: string): Promise<ExternalIdentity> {
    const s = this.settings;
    if (s.transport === 'starttls') await client.startTLS(this.tlsOptions());
    await this.bindManager(client);
    const filter = `(&(${s.loginAttribute}=${escapeFilterValue(login)})${s.userSearchFilter})`;
    const attributes = [
      s.loginAttribute,
      s.mailAttribute,
      ...(s.userMemberAttribute ? [s.userMemberAttribute] : []),
    ];
    let entries: Entry[];
    try {
      ({ searchEntries: entries } = await client.search(s.userSearchBase, {
        scope: 'sub',
        filter,
        attributes,
        sizeLimit: 2,
      }));
    } catch (err) {
      if (err instanceof SizeLimitExceededError) throw refused();
      throw err;
    }
    if (entries.length !== 1) throw refused();
    const entry = entries[0];
    try {
      await client.bind(entry.dn, password);
    } catch (err) {
      // Wrong password, or the server will not let this entry bind (locked, no password): the same refusal.
      if (err instanceof ResultCodeError) throw refused();
      throw err;
    }
    // Groups are read with the manager's rights (the user may not read group entries).
    await this.bindManager(client);
    const uid = firstValue(entry, s.loginAttribute) || login;
    return {
      uid,
      username: uid,
      email: firstValue(entry, s.mailAttribute),
      groups: await this.groups(client, entry),
    };
  }

  private async bindManager(client: Client): Promise<void> {
    try {
      await client.bind(this.settings.managerDN, this.settings.managerPassword);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) throw providerMisconfigured(this.settings.name, err);
      throw err;
    }
  }

  /** Group names of the entry: groups under groupSearchBase listing its DN, and its userMemberAttribute values. */
  private async groups(client: Client, entry: Entry): Promise<string[] | undefined> {
    const s = this.settings;
    if (!s.groupSearchBase && !s.userMemberAttribute) return undefined;
    const names = new Set<string>();
    if (s.userMemberAttribute) {
      for (const dn of allValues(entry, s.userMemberAttribute)) {
        if (!s.groupSearchBase || sameDnSuffix(dn, s.groupSearchBase)) names.add(rdnValue(dn));
      }
    }
    if (s.groupSearchBase) {
      const filter = `(&(${s.groupMemberAttribute}=${escapeFilterValue(entry.dn)})${s.groupSearchFilter})`;
      const { searchEntries } = await client.search(s.groupSearchBase, {
        scope: 'sub',
        filter,
        attributes: [s.groupNameAttribute],
      });
      for (const g of searchEntries) names.add(firstValue(g, s.groupNameAttribute) || rdnValue(g.dn));
    }
    names.delete('');
    return [...names].sort();
  }
}
