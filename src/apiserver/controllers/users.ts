// The user controller (reference 4.1): hashes a plaintext spec.password, gives a new user state Active, returns an
// AuthLimitExceeded user to Active once the lockout window has passed (requeued for that moment), and deletes what
// a deleted user leaves behind: bindings of every kind, GroupBindings and LoginRecords labelled with the user
// (dependents.ts). The lock itself is set by the password authenticator, which counts the failures.
import type { AuthenticationOptions } from '../../config/index.ts';
import type { Clock } from '../clock.ts';
import type { ClusterCache, KubeRest } from '../cluster/index.ts';
import { USER_REF_LABEL } from '../iam/labels.ts';
import { hashPassword, isPasswordHashed } from '../iam/password.ts';
import { kubeTime, USERS_PATH, USERS_REF, type UserObject } from '../iam/users.ts';
import { Dependents } from './dependents.ts';
import { BINDING_KINDS, GROUP_BINDINGS, isDeleting, LOGIN_RECORDS, type Obj } from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

/** What a deleted user leaves behind; watches user deletions for the life of the process. */
export function userDependents(cache: ClusterCache, clock: Clock): Dependents {
  return new Dependents(
    USER_REF_LABEL,
    cache.informer(USERS_REF),
    [...BINDING_KINDS, GROUP_BINDINGS, LOGIN_RECORDS].map((ref) => ({ ref, informer: cache.informer(ref) })),
    clock,
  );
}

export function userController(
  cache: ClusterCache,
  rest: KubeRest,
  dependents: Dependents,
  options: () => AuthenticationOptions,
  clock: Clock,
): Controller {
  const users = cache.informer(USERS_REF);
  const path = (name: string) => `${USERS_PATH}/${encodeURIComponent(name)}`;
  const now = () => kubeTime(new Date(clock.now()));

  /** Hashes a plaintext password and sets a missing state, in one update guarded by the cached version. */
  async function initialise(user: UserObject): Promise<boolean> {
    const password = user.spec?.password;
    const needsHash = typeof password === 'string' && password !== '' && !isPasswordHashed(password);
    if (!needsHash && user.status?.state) return false;
    const next: UserObject = structuredClone(user);
    if (needsHash) next.spec = { ...next.spec, password: await hashPassword(password) };
    if (!next.status?.state) next.status = { ...next.status, state: 'Active', lastTransitionTime: now() };
    await rest.replace(path(user.metadata.name), next);
    return true;
  }

  return {
    name: 'user',
    informers: [users, ...dependents.informers],
    watch(enqueue) {
      return [
        users.addEventHandler(enqueueKeys(enqueue, (o) => [String(o.metadata?.name)])),
        ...dependents.watch(enqueue),
      ];
    },
    async reconcile(name) {
      await dependents.reconcile(rest, name);
      const user = users.get('', name)?.object() as UserObject | undefined;
      if (!user || isDeleting(user as Obj)) return undefined;
      if (await initialise(user)) return undefined; // the update event brings the user back here
      if (user.status?.state !== 'AuthLimitExceeded') return undefined;
      const since = Date.parse(user.status.lastTransitionTime ?? '') || 0;
      const lockedFor = since + options().authenticateRateLimiterDuration - clock.now();
      if (lockedFor > 0) return { requeueAfterMs: lockedFor };
      await rest.mergePatch(path(name), {
        metadata: { resourceVersion: user.metadata.resourceVersion },
        status: { state: 'Active', reason: '', lastTransitionTime: now() },
      });
      return undefined;
    },
  };
}
