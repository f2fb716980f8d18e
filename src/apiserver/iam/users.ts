// KubeSphere users (iam.kubesphere.io/v1alpha2 User, cluster-scoped), read from an informer-style cache so a login
// or a bearer check costs no orchestrator round trip; writes go straight to the orchestrator.
import type { Logger } from 'pino';
import {
  IAM_GROUP,
  IAM_VERSION,
  type KubeObject,
  type KubeRest,
  type ListWatch,
  listWatch,
} from '../crds/index.ts';

export const USERS_PATH = `/apis/${IAM_GROUP}/${IAM_VERSION}/users`;
export const UNINITIALIZED_ANNOTATION = 'iam.kubesphere.io/uninitialized';

export type UserState = 'Active' | 'Disabled' | 'AuthLimitExceeded';

export interface UserObject extends KubeObject {
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

export type UserListener = (type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC', user: UserObject) => void;

export class Users {
  private readonly byName = new Map<string, UserObject>();
  private readonly listeners: UserListener[] = [];
  private watch?: ListWatch;

  constructor(
    readonly rest: KubeRest,
    private readonly logger: Logger,
  ) {}

  /** Starts the list+watch; `synced` resolves after the first list. */
  start(): ListWatch {
    this.watch = listWatch<UserObject>(
      this.rest,
      USERS_PATH,
      {
        onSync: (items) => {
          this.byName.clear();
          for (const u of items) this.byName.set(u.metadata.name, u);
          for (const u of items) this.emit('SYNC', u);
        },
        onEvent: (type, u) => {
          if (type === 'DELETED') this.byName.delete(u.metadata.name);
          else this.byName.set(u.metadata.name, u);
          this.emit(type, u);
        },
      },
      this.logger,
    );
    return this.watch;
  }

  get synced(): boolean {
    return this.watch?.isSynced() ?? false;
  }

  onChange(fn: UserListener): void {
    this.listeners.push(fn);
  }

  private emit(type: Parameters<UserListener>[0], u: UserObject): void {
    for (const fn of this.listeners) {
      try {
        fn(type, u);
      } catch (err) {
        this.logger.error({ err: (err as Error).message, user: u.metadata.name }, 'user listener failed');
      }
    }
  }

  get(name: string): UserObject | undefined {
    return this.byName.get(name);
  }

  /** Waits until the cache holds `name` (a write of ours shows up through the watch a moment later). */
  async waitFor(name: string, timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.byName.has(name)) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  }

  all(): UserObject[] {
    return [...this.byName.values()];
  }

  /** A login name: the user of that name, or (when it looks like an e-mail address) the user with that spec.email. */
  lookup(login: string): UserObject | undefined {
    const byName = this.byName.get(login);
    if (byName || !login.includes('@')) return byName;
    const email = login.toLowerCase();
    for (const u of this.byName.values()) if (u.spec?.email?.toLowerCase() === email) return u;
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

  close(): void {
    this.watch?.close();
  }
}

/** `2026-01-02T03:04:05Z`: Kubernetes' second-precision time format. */
export function kubeTime(d = new Date()): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}
