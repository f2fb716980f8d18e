// Per-resource behaviour, as in Kubernetes' registry: the generic store (rest.ts) calls a resource's strategy at
// fixed points of create, update, write and delete. Resources without one get the default strategy.
import type { StatusCause } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../resources.ts';
import type { DeleteOptions, WriteOptions } from '../rest.ts';
import type { Entry, Obj, Store } from '../store.ts';

/** What a strategy may use beyond the object: storage, the served types, and the controllers the store emulates. */
export interface StrategyContext {
  store: Store;
  registry: Registry;
  /** Creates an object as a controller would (e.g. a namespace's default service account). */
  create(d: ResourceDef, ns: string, body: Obj, opts: WriteOptions): Entry;
  /** Runs the namespace controller's pass over a terminating namespace soon. */
  finalizeNamespaceSoon(ns: string): void;
}

export interface ResourceStrategy {
  /** Defaults of a new object (metadata already set); may refuse it (422). */
  prepareForCreate(o: Obj, ctx: StrategyContext): void;
  /** Restores what a full replacement may not change, before the old identity metadata is copied in. */
  prepareForUpdate(o: Obj, old: Obj, sub: string | undefined, ctx: StrategyContext): void;
  /** Checks that need the final identity (may refuse, 422), then fills derived fields. */
  finishUpdate(o: Obj, old: Obj, sub: string | undefined): void;
  /** Normalisation on every write (create and update). */
  canonicalize(o: Obj): void;
  /** Validation on every write: 422 causes (a strict decoding error is thrown as a 400). */
  validate(o: Obj, opts: WriteOptions): StatusCause[];
  /** Whether removal waits for finalizers. */
  hasFinalizers(o: Obj): boolean;
  /** Whether strategic merge patches apply (they need the Go type's patch strategy). */
  strategicMergePatch: boolean;
  /** After a create that was stored (not a dry run). */
  afterCreate(entry: Entry, ctx: StrategyContext): void;
  /** After every stored write. */
  afterStore(entry: Entry, ctx: StrategyContext): void;
  /** After the object is gone from storage. */
  afterRemove(removed: Entry, ctx: StrategyContext): void;
  /**
   * Deletion the resource performs itself (a namespace terminates, a running pod is stopped by its kubelet): the
   * object as left, or undefined for the generic delete.
   */
  delete?(e: Entry, ctx: StrategyContext, opts: DeleteOptions): Entry | undefined;
}

export function metadataFinalizers(o: Obj): boolean {
  const f = (o.metadata as Obj | undefined)?.finalizers;
  return Array.isArray(f) && f.length > 0;
}

const nothing = () => {};

export const defaultStrategy: ResourceStrategy = {
  prepareForCreate: nothing,
  prepareForUpdate: nothing,
  finishUpdate: nothing,
  canonicalize: nothing,
  validate: () => [],
  hasFinalizers: metadataFinalizers,
  strategicMergePatch: true,
  afterCreate: nothing,
  afterStore: nothing,
  afterRemove: nothing,
};

/** A strategy that differs from the default in `overrides`. */
export const strategy = (overrides: Partial<ResourceStrategy>): ResourceStrategy => ({
  ...defaultStrategy,
  ...overrides,
});

/** `parent[key]` as an object, created when missing. */
export const objAt = (parent: Obj, key: string): Obj => {
  if (!isObj(parent[key])) parent[key] = {};
  return parent[key] as Obj;
};
