// The configuration in force. Every layer but one is fixed at start (defaults < file < flags); the ClusterConfiguration
// layer is live (oauth/clusterconfig.ts), so consumers read `current()` when they act instead of keeping a copy, and
// those that hold derived state (the OAuth client registry) subscribe to changes.
import type { KubeSphereConfig } from '../config/index.ts';

export type ConfigListener = (config: KubeSphereConfig) => void;

export class ConfigSource {
  #current: KubeSphereConfig;
  readonly #listeners = new Set<ConfigListener>();

  constructor(initial: KubeSphereConfig) {
    this.#current = initial;
  }

  current(): KubeSphereConfig {
    return this.#current;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: ConfigListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Puts `next` in force and tells every listener. */
  set(next: KubeSphereConfig): void {
    this.#current = next;
    for (const listener of this.#listeners) listener(next);
  }
}
