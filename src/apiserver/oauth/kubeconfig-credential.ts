// A user's kubeconfig credential: one `kubeconfig` token at a time, the same on every download until it is revoked,
// expires or the user's credentials change (as KubeSphere's one kubeconfig per user), so fetching the kubeconfig again
// never breaks the kubectl that has it, and downloads in a loop add nothing to the token store.
// The token is a pure function of its epoch (uid, credential generation, issue time, jti) and the signing key. The
// epoch is the `<user>:kubeconfig` owner's sole-token state in the token store (no secret in it), so every replica
// derives the same token. A download whose epoch's token is not active (revoked, expired, or outdated by a new uid,
// credentials, issuer or signing key) starts a new epoch, whose token replaces every token of the owner in one atomic
// step that holds only if no one started another first; a replica that lost that race returns the winner's token.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { UserObject } from '../iam/users.ts';
import { credentialGeneration, kubeconfigTokensOwner } from './credentials.ts';
import type { TokenIssuer } from './jwt.ts';
import { type TokenStore, TokenStoreUnavailableError } from './store/index.ts';

/**
 * Lifetime of a kubeconfig's credential: a year, as KubeSphere's kubeconfig client certificates. It is revocable
 * like every token (password change, disable, deletion, RFC 7009 revocation), and bound to the user's credentials.
 */
export const KUBECONFIG_TOKEN_TTL_MS = 365 * 24 * 3600 * 1000;

/** Rounds of read, then replace: each lost round means another caller just made a token the next round finds. */
const MAX_ROUNDS = 4;

/** What a kubeconfig token is signed over, besides the user's name and the issuer. */
interface Epoch {
  uid: string;
  cred: string;
  /** Seconds since the epoch. */
  iat: number;
  jti: string;
}

export class KubeconfigCredentials {
  constructor(
    private readonly issuer: TokenIssuer,
    private readonly store: TokenStore,
    private readonly clock: Clock,
  ) {}

  /** The user's kubeconfig token: the current epoch's while it is active, else a new epoch's. */
  async tokenFor(user: UserObject): Promise<string> {
    const owner = kubeconfigTokensOwner(user.metadata.name);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const state = await this.store.soleTokenState(owner);
      const current = state === undefined ? undefined : this.currentEpoch(user, state);
      if (current) {
        const token = await this.sign(user, current);
        if (await this.store.isActive(owner, token)) return token;
      }
      const next: Epoch = {
        uid: user.metadata.uid ?? '',
        cred: credentialGeneration(user),
        iat: Math.floor(this.clock.now() / 1000),
        jti: randomBytes(12).toString('base64url'),
      };
      const token = await this.sign(user, next);
      if (
        await this.store.replaceSoleToken(owner, state, JSON.stringify(next), token, KUBECONFIG_TOKEN_TTL_MS)
      ) {
        return token;
      }
    }
    throw new TokenStoreUnavailableError(new Error('the kubeconfig credential kept being replaced'));
  }

  /** The stored epoch, when it is for this User object's uid and credentials and not yet expired. */
  private currentEpoch(user: UserObject, state: string): Epoch | undefined {
    let e: Partial<Epoch>;
    try {
      e = JSON.parse(state) as Partial<Epoch>;
    } catch {
      return undefined;
    }
    if (typeof e.iat !== 'number' || typeof e.jti !== 'string') return undefined;
    if (e.uid !== (user.metadata.uid ?? '') || e.cred !== credentialGeneration(user)) return undefined;
    if (e.iat * 1000 + KUBECONFIG_TOKEN_TTL_MS <= this.clock.now()) return undefined;
    return e as Epoch;
  }

  private async sign(user: UserObject, epoch: Epoch): Promise<string> {
    const { token } = await this.issuer.issue({
      username: user.metadata.name,
      tokenType: 'kubeconfig',
      ttlMs: KUBECONFIG_TOKEN_TTL_MS,
      uid: epoch.uid,
      cred: epoch.cred,
      issuedAt: epoch.iat,
      jti: epoch.jti,
    });
    return token;
  }
}
