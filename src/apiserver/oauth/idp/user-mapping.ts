// From an external identity to the KubeSphere User it signs in as (reference 8.4): the one User labelled with the
// provider and the identity's origin uid; with mappingMethod `auto` and none yet, a new User named after the
// identity's (lowercased) user name, labelled so, with no password; with `lookup`, only an existing mapping.
// Differences on purpose: a taken name, a taken e-mail or an invalid name is a clear 4xx (KubeSphere: 500); a User is
// created at once (KubeSphere's default asks the console to confirm first); a disabled User is refused everywhere.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClusterCache, Informer } from '../../cluster/index.ts';
import { GROUP_BINDINGS } from '../../controllers/resources.ts';
import { groupsConferredBy } from '../../iam/user-groups.ts';
import { kubeTime, USERS_PATH, USERS_REF, type UserObject, type Users } from '../../iam/users.ts';
import { DESCRIPTIONS } from '../errors.ts';
import { type ExternalIdentity, providerRefused } from './identity.ts';
import type { MappingMethod } from './settings.ts';

/** KubeSphere's mapping labels (pkg/apis/iam/v1alpha2: IdentifyProviderLabel, OriginUIDLabel). */
export const IDENTITY_PROVIDER_LABEL = 'iam.kubesphere.io/identify-provider';
export const ORIGIN_UID_LABEL = 'iam.kubesphere.io/origin-uid';
/** kapiserver only: the groups the provider gave at the last login, so a group it no longer reports is taken away. */
export const PROVIDER_GROUPS_ANNOTATION = 'iam.kubesphere.io/identity-provider-groups';

/** A User name that is also a label value (login records and bindings label by user name). */
const USER_NAME = /^[a-z0-9]([-a-z0-9._]{0,61}[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const MAX_GROUP_NAME = 253;

/** The origin-uid label value: the uid itself when it is a valid label value, else a digest of it. */
export function originUidLabel(uid: string): string {
  if (LABEL_VALUE.test(uid)) return uid;
  return `sha256-${createHash('sha256').update(uid, 'utf8').digest('hex').slice(0, 56)}`;
}

export interface MappingProvider {
  name: string;
  mappingMethod: MappingMethod;
}

export class IdentityMapper {
  private readonly users: Informer;
  private readonly groupBindings: Informer;

  constructor(
    private readonly userStore: Users,
    cache: ClusterCache,
    private readonly logger: Logger,
  ) {
    this.users = cache.informer(USERS_REF);
    this.groupBindings = cache.informer(GROUP_BINDINGS);
  }

  /** The mapped User, created when allowed; throws an RFC 6749 error when there is none to sign in as. */
  async userFor(provider: MappingProvider, identity: ExternalIdentity): Promise<UserObject> {
    const originUid = originUidLabel(identity.uid);
    let user = this.mapped(provider.name, originUid);
    if (!user) {
      if (provider.mappingMethod !== 'auto') {
        throw providerRefused(`no user is mapped to this identity of "${provider.name}"`);
      }
      user = await this.create(provider.name, originUid, identity);
    }
    if (user.status?.state === 'Disabled') throw providerRefused(DESCRIPTIONS.notActive, 400);
    if (identity.groups) user = await this.syncGroups(user, identity.groups);
    return user;
  }

  private mapped(provider: string, originUid: string): UserObject | undefined {
    const byProvider = this.users.keysWithLabel(IDENTITY_PROVIDER_LABEL, provider);
    const keys = [...this.users.keysWithLabel(ORIGIN_UID_LABEL, originUid)].filter((k) => byProvider.has(k));
    if (keys.length > 1)
      throw providerRefused(`several users are mapped to this identity of "${provider}"`, 409);
    const entry = keys.length === 1 ? this.users.getByKey(keys[0]) : undefined;
    return entry && this.userStore.get(entry.name);
  }

  private async create(provider: string, originUid: string, identity: ExternalIdentity): Promise<UserObject> {
    const name = identity.username.toLowerCase();
    if (!USER_NAME.test(name)) {
      throw providerRefused(
        `the user name "${name.slice(0, 64)}" from "${provider}" is not a valid KubeSphere user name (lowercase letters, digits, "-", "." or "_", at most 63)`,
        400,
      );
    }
    if (this.userStore.get(name)) {
      throw providerRefused(`the user name "${name}" is taken by a user not mapped to this identity`, 409);
    }
    const email = identity.email;
    if (email && this.userStore.lookup(email)) {
      throw providerRefused(`the e-mail address of this identity belongs to another user`, 409);
    }
    const groups = identity.groups ? usableGroups(identity.groups) : [];
    try {
      await this.userStore.create({
        metadata: {
          name,
          labels: { [IDENTITY_PROVIDER_LABEL]: provider, [ORIGIN_UID_LABEL]: originUid },
          ...(identity.groups
            ? { annotations: { [PROVIDER_GROUPS_ANNOTATION]: JSON.stringify(groups) } }
            : {}),
        },
        spec: { ...(email ? { email } : {}), ...(groups.length > 0 ? { groups } : {}) },
        status: { state: 'Active', lastTransitionTime: kubeTime() },
      });
    } catch (err) {
      // Two first logins at once: the other one created it.
      if ((err as { code?: number }).code !== 409) throw err;
    }
    if (!(await this.userStore.waitFor(name))) throw new Error(`user ${name} did not appear in the cache`);
    const created = this.mapped(provider, originUid);
    if (!created)
      throw providerRefused(`the user name "${name}" is taken by a user not mapped to this identity`, 409);
    this.logger.info({ user: name, provider }, 'user created from an identity provider');
    return created;
  }

  /**
   * spec.groups := what other sources gave (GroupBindings, administrators) plus what the provider reports now. A
   * group the provider gave at the last login and no longer reports is removed, unless a GroupBinding still gives it.
   */
  private async syncGroups(user: UserObject, reported: string[]): Promise<UserObject> {
    const next = usableGroups(reported);
    const recorded = JSON.stringify(next);
    const bound = this.boundGroups(user.metadata.name);
    for (let attempt = 0; ; attempt++) {
      const annotations = user.metadata.annotations ?? {};
      const previous = parseList(annotations[PROVIDER_GROUPS_ANNOTATION]);
      const current = user.spec?.groups ?? [];
      const kept = current.filter((g) => next.includes(g) || !previous.includes(g) || bound.has(g));
      const groups = [...new Set([...kept, ...next])];
      if (sameList(groups, current) && annotations[PROVIDER_GROUPS_ANNOTATION] === recorded) return user;
      try {
        // Guarded by the version read: a concurrent change of the groups (a GroupBinding) is never overwritten.
        return await this.userStore.rest.mergePatch<UserObject>(
          `${USERS_PATH}/${encodeURIComponent(user.metadata.name)}`,
          {
            metadata: {
              annotations: { [PROVIDER_GROUPS_ANNOTATION]: recorded },
              resourceVersion: user.metadata.resourceVersion,
            },
            spec: { groups },
          },
        );
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 2) throw err;
        user = await this.userStore.fetch(user.metadata.name);
      }
    }
  }

  /** Groups a GroupBinding gives the user. */
  private boundGroups(user: string): Set<string> {
    const groups = new Set<string>();
    for (const entry of this.groupBindings.entries()) {
      const b = entry.object() as { groupRef?: { name?: string }; users?: unknown };
      if (Array.isArray(b.users) && b.users.includes(user) && b.groupRef?.name) groups.add(b.groupRef.name);
    }
    return groups;
  }
}

/** Group names a provider may give: never a `system:` one (they belong to the platform), none empty or huge. */
function usableGroups(groups: string[]): string[] {
  const usable = groupsConferredBy(groups).filter((g) => g.length > 0 && g.length <= MAX_GROUP_NAME);
  return [...new Set(usable)].sort();
}

function parseList(v: string | undefined): string[] {
  try {
    const list = JSON.parse(v ?? '[]');
    return Array.isArray(list) ? list.filter((g): g is string => typeof g === 'string') : [];
  } catch {
    return [];
  }
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((g, i) => g === b[i]);
