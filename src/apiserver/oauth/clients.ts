// OAuth clients (kubesphere.yaml `oauthOptions.clients`, replaced live from the ClusterConfiguration). A client's
// `name` is its client_id. Secrets are compared in constant time over fixed-length digests, so neither the
// content nor the length of a secret leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, type OAuthClient } from '../../config/index.ts';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** A digest no real secret matches, compared against when the client is unknown (same work either way). */
const UNKNOWN = digest('\0kapiserver-unknown-client\0');

export class ClientRegistry {
  private clients = new Map<string, { client: OAuthClient; secret: Buffer }>();

  constructor(clients: OAuthClient[]) {
    this.replace(clients);
  }

  /** Swaps the whole client list at once (a ClusterConfiguration change). */
  replace(clients: OAuthClient[]): void {
    this.clients = new Map(clients.map((c) => [c.name, { client: c, secret: digest(c.secret) }]));
  }

  get(id: string): OAuthClient | undefined {
    return this.clients.get(id)?.client;
  }

  list(): OAuthClient[] {
    return [...this.clients.values()].map((e) => e.client);
  }

  /** The client when id and secret match; undefined otherwise (unknown id and wrong secret take the same path). */
  authenticate(id: string, secret: string): OAuthClient | undefined {
    const entry = this.clients.get(id);
    const ok = timingSafeEqual(entry?.secret ?? UNKNOWN, digest(secret));
    // A client configured with an empty secret can never authenticate (KubeSphere requires client_secret).
    return ok && entry && entry.client.secret !== '' ? entry.client : undefined;
  }

  /** True while KubeSphere's well-known default client is configured with its well-known secret. */
  usesDefaultSecret(): boolean {
    return this.clients.get(DEFAULT_CLIENT_ID)?.client.secret === DEFAULT_CLIENT_SECRET;
  }
}
