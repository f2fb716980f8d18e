// Binding of tokens to the credentials they were issued for. A token names a user, but a name outlives the
// credentials behind it: the password changes (through /kapis, or `kubectl edit user` straight through /apis), the
// user is deleted and someone creates a new one of the same name. Each token therefore carries
//   uid  - metadata.uid of the User object it was issued to (a recreated user has a new uid), and
//   cred - a digest of that user's spec.password at issue time, its credential generation,
// and both are compared with the live User object on every bearer check and refresh.
// Why the password digest rather than KubeSphere's iam.kubesphere.io/last-password-change-time annotation: every
// write of spec.password changes it, whoever makes it and however (a ready-made bcrypt hash written with kubectl
// sets no annotation; the annotation has one-second precision). It is not a password verifier: a bcrypt hash has a
// random salt, and only the digest of the hash (never the hash) is in the token.
import { createHash } from 'node:crypto';
import type { UserObject } from '../iam/users.ts';

/** User objects are replaced, never mutated, on every change: the digest is computed once per version. */
const generations = new WeakMap<UserObject, string>();

export function credentialGeneration(user: UserObject): string {
  let g = generations.get(user);
  if (g === undefined) {
    g = createHash('sha256')
      .update(user.spec?.password ?? '')
      .digest('base64url')
      .slice(0, 22);
    generations.set(user, g);
  }
  return g;
}

/**
 * The store entry under which a token kept across a password change (self-service, on request) is re-admitted for
 * the new credential generation. `:` never occurs in a User name (a DNS subdomain name), so this never collides with
 * a real user's entry.
 */
export function keptTokensOwner(username: string, generation: string): string {
  return `${username}:kept:${generation}`;
}

/**
 * The store entry of a user's kubeconfig credentials: apart from the session tokens, so ending sessions (logout, a
 * single-login policy, a reused refresh token or code) leaves the user's kubectl working, as KubeSphere's
 * kubeconfig certificate does; a password change, a disable or a deletion ends both.
 */
export function kubeconfigTokensOwner(username: string): string {
  return `${username}:kubeconfig`;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  return m?.[1];
}
