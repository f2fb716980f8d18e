// KubeSphere users (iam.kubesphere.io/v1alpha2 User, cluster-scoped), read from the users informer of the shared
// cluster cache (the same one the /kapis iam routes read), so a login or a bearer check costs no orchestrator round
// trip; writes go straight to the orchestrator.
import type { ClusterCache, Entry, Informer, KubeObject, KubeRest, ObjectMeta } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION, USER_CRD } from '../crds/index.ts';

export const USERS_PATH = `/apis/${IAM_GROUP}/${IAM_VERSION}/users`;
export const USERS_REF = { group: IAM_GROUP, version: IAM_VERSION, resource: USER_CRD.spec.names.plural };
export const UNINITIALIZED_ANNOTATION = 'iam.kubesphere.io/uninitialized';
/** Index of users by lowercased spec.email, for logins with an e-mail address. */
const EMAIL_INDEX = 'iam.users.email';

export type UserState = 'Active' | 'Disabled' | 'AuthLimitExceeded';

export interface UserObject extends KubeObject {
  metadata: ObjectMeta & { name: string };
  spec?: {
    email?: string;
    lang?: string;
    description?: string;
    displayName?: string;
    groups?: string[];
    password?: string;
  };
  status?: {
    state?: UserState;
    reason?: string;
    lastTransitionTime?: string;
    lastLoginTime?: string;
  };
}

export class Users {
  private informer?: Informer;
  /** One parse per cached version: a User object is replaced, never mutated, on every change. */
  private readonly parsed = new WeakMap<Entry, UserObject>();

  constructor(
    readonly rest: KubeRest,
    private readonly cache: ClusterCache,
  ) {}

  /** Starts (or joins) the users informer; idempotent. Call it once the User CRD is served. */
  start(): Informer {
    if (this.informer) return this.informer;
    const informer = this.cache.informer(USERS_REF);
    informer.addIndex(EMAIL_INDEX, (o) => {
      const email = (o as UserObject).spec?.email;
      return email ? [email.toLowerCase()] : [];
    });
    this.informer = informer;
    return informer;
  }

  private userOf(entry: Entry): UserObject {
    let user = this.parsed.get(entry);
    if (!user) {
      user = entry.object() as UserObject;
      this.parsed.set(entry, user);
    }
    return user;
  }

  get(name: string): UserObject | undefined {
    const entry = this.informer?.get('', name);
    return entry && this.userOf(entry);
  }

  /** Waits until the cache holds `name` (a write of ours shows up through the watch a moment later). */
  async waitFor(name: string, timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.get(name)) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  }

  /** A login name: the user of that name, or (when it looks like an e-mail address) the user with that spec.email. */
  lookup(login: string): UserObject | undefined {
    const byName = this.get(login);
    if (byName || !login.includes('@') || !this.informer) return byName;
    for (const key of this.informer.keysByIndex(EMAIL_INDEX, login.toLowerCase())) {
      const entry = this.informer.getByKey(key);
      if (entry) return this.userOf(entry);
    }
    return undefined;
  }

  /** Fresh read from the orchestrator (the cache may lag a write by a few milliseconds). */
  fetch(name: string): Promise<UserObject> {
    return this.rest.get<UserObject>(`${USERS_PATH}/${encodeURIComponent(name)}`);
  }

  create(user: UserObject): Promise<UserObject> {
    return this.rest.create<UserObject>(USERS_PATH, {
      apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
      kind: 'User',
      ...user,
    });
  }

  /** Replaces the user, guarded by its resourceVersion (409 when someone else changed it first). */
  replace(user: UserObject): Promise<UserObject> {
    return this.rest.replace<UserObject>(`${USERS_PATH}/${encodeURIComponent(user.metadata.name)}`, user);
  }

  /** Merges fields into status (KubeSphere's User CRD has no status subresource: status is written with the object). */
  patchStatus(name: string, status: NonNullable<UserObject['status']>): Promise<UserObject> {
    return this.rest.mergePatch<UserObject>(`${USERS_PATH}/${encodeURIComponent(name)}`, { status });
  }
}

/** `2026-01-02T03:04:05Z`: Kubernetes' second-precision time format. */
export function kubeTime(d = new Date()): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}
