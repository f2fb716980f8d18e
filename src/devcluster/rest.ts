// REST semantics of the dev cluster on top of the store: create/get/list/update/patch/delete with the metadata
// rules Kubernetes clients rely on (uid, generation, generateName, optimistic concurrency, finalizers, namespace
// lifecycle, deletion propagation policies (as finalizers), CRD registration, status and scale subresources).
import {
  type FieldRequirement,
  type LabelSelector,
  matchFields,
  parseFieldSelector,
  parseLabelSelector,
} from '../k8s/selectors.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  gone,
  invalid,
  methodNotAllowed,
  notFound,
  type StatusCause,
  StatusError,
} from '../k8s/status.ts';
import { mutateOnCreate, validateOnCreate, validateOnUpdate } from './admission/index.ts';
import { crdResourceDefs, readPath, writePath } from './crd.ts';
import { isObj, jsonEqual, metaOf, newUid, nowSeconds, randomSuffix, validateMeta } from './meta.ts';
import { validateName } from './names.ts';
import { decodeStrictly } from './openapi/decode.ts';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  serverSideApply,
  updateManagedFields,
} from './patch/index.ts';
import type { PatchKind } from './patching.ts';
import type { Registry } from './registry.ts';
import { apiVersionOf, type ResourceDef, storageKey } from './resources.ts';
import type { Entry, Obj, Store } from './store.ts';
import { type StrategyContext, strategyFor } from './strategy/index.ts';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  force?: boolean;
  /** Unknown fields: `Strict` refuses them (400), `Warn` (the default) and `Ignore` drop them. */
  fieldValidation?: string;
  /** Collects the write's warnings (unknown fields dropped), for the response's Warning headers. */
  warnings?: string[];
  /** Default manager name when the client sends none (derived from the User-Agent like Kubernetes does). */
  userAgentManager?: string;
  /** The caller hands the body over (a request body just decoded): it becomes the stored object, uncopied. */
  bodyOwned?: boolean;
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  entries: Entry[];
  rv: number;
  continue?: string;
  remainingItemCount?: number;
}

export interface DeleteOptions {
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Seconds the object's owner (a pod's kubelet) gets to finish it; 0 removes it now. */
  gracePeriodSeconds?: number;
}

export interface Selectors {
  label: LabelSelector;
  fields: FieldRequirement[];
}

const keyOf = (ns: string, name: string) => `${ns}\u0000${name}`;

/** Names drawn for one generateName create before it fails as AlreadyExists (kube-apiserver's count). */
const GENERATE_NAME_TRIES = 8;

/** The finalizer a deletion's propagationPolicy adds (Background adds none). */
const GC_FINALIZERS: Record<string, string | undefined> = {
  Foreground: 'foregroundDeletion',
  Orphan: 'orphan',
};

export class Rest {
  private readonly finalizingNamespaces = new Set<string>();
  private closed = false;
  private readonly ctx: StrategyContext;

  constructor(
    readonly store: Store,
    readonly registry: Registry,
  ) {
    this.ctx = {
      store,
      registry,
      create: (d, ns, body, opts) => this.create(d, ns, body, opts),
      finalizeNamespaceSoon: (ns) => this.scheduleNamespaceFinalize(ns),
    };
  }

  close(): void {
    this.closed = true;
  }

  /** Registers the served versions of every stored CRD (at start-up). */
  loadCrds(): void {
    for (const e of this.store.list(
      storageKey({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }),
    )) {
      if (!isObj((e.obj.metadata as Obj).deletionTimestamp))
        this.registry.setCrd(e.name, crdResourceDefs(e.obj));
    }
  }

  // --- reads ---

  get(d: ResourceDef, ns: string, name: string): Entry {
    const e = this.store.get(storageKey(d), d.namespaced ? ns : '', name);
    if (!e) throw notFound(d.group, d.resource, name);
    return e;
  }

  parseSelectors(d: ResourceDef, q: { labelSelector?: string; fieldSelector?: string }): Selectors {
    const label = parseLabelSelector(q.labelSelector ?? '');
    const fields = parseFieldSelector(q.fieldSelector ?? '');
    const probe = d.fields ? d.fields({}) : {};
    for (const f of fields) {
      if (f.field === 'metadata.name' || f.field === 'metadata.namespace' || f.field in probe) continue;
      throw badRequest(`field label not supported: ${f.field}`);
    }
    return { label, fields };
  }

  matches(d: ResourceDef, sel: Selectors, o: Obj): boolean {
    const meta = (o.metadata ?? {}) as Obj;
    if (!sel.label.empty && !sel.label.matches(meta.labels as Record<string, string> | undefined))
      return false;
    if (sel.fields.length === 0) return true;
    const fields = {
      'metadata.name': String(meta.name ?? ''),
      'metadata.namespace': String(meta.namespace ?? ''),
      ...(d.fields ? d.fields(o) : {}),
    };
    return matchFields(sel.fields, fields);
  }

  list(d: ResourceDef, ns: string | undefined, q: ListQuery): ListResult {
    const sel = this.parseSelectors(d, q);
    const res = storageKey(d);
    const scope = d.namespaced ? ns : undefined;
    let atRv = this.store.currentRv;
    let start: string | undefined;
    let entries: Entry[];
    if (q.continue) {
      const tok = decodeContinue(q.continue);
      atRv = tok.rv;
      start = tok.start;
      entries = this.snapshotOrExpired(res, atRv, scope);
    } else if (q.resourceVersion && q.resourceVersion !== '0' && q.resourceVersionMatch === 'Exact') {
      atRv = parseRv(q.resourceVersion);
      entries = this.store.snapshot(res, atRv, scope);
    } else {
      if (q.resourceVersion && q.resourceVersion !== '0') {
        const want = parseRv(q.resourceVersion);
        if (want > atRv)
          throw new StatusError(504, 'Timeout', `Too large resource version: ${want}, current: ${atRv}`, {
            causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
            retryAfterSeconds: 1,
          });
      }
      entries = this.store.list(res, scope);
    }
    const filtered = sel.label.empty && sel.fields.length === 0;
    let items = filtered ? entries : entries.filter((e) => this.matches(d, sel, e.obj));
    if (start !== undefined) {
      const s = start;
      items = items.filter((e) => keyOf(e.ns, e.name) > s);
    }
    const limit = q.limit && q.limit > 0 ? q.limit : 0;
    if (limit && items.length > limit) {
      const page = items.slice(0, limit);
      const last = page[page.length - 1];
      return {
        entries: page,
        rv: atRv,
        continue: encodeContinue(atRv, keyOf(last.ns, last.name)),
        remainingItemCount: filtered ? items.length - limit : undefined,
      };
    }
    return { entries: items, rv: atRv };
  }

  private snapshotOrExpired(res: string, rv: number, ns: string | undefined): Entry[] {
    try {
      return this.store.snapshot(res, rv, ns);
    } catch (err) {
      if (err instanceof StatusError && err.code === 410)
        throw gone(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      throw err;
    }
  }

  // --- writes ---

  private checkNamespace(d: ResourceDef, ns: string): void {
    if (!d.namespaced) return;
    if (!ns) throw badRequest('the server could not find the requested resource: a namespace is required');
    const nsEntry = this.store.get('/namespaces', '', ns);
    if (!nsEntry) throw notFound('', 'namespaces', ns);
    if ((nsEntry.obj.metadata as Obj).deletionTimestamp)
      throw forbidden(
        `${d.resource}${d.group ? `.${d.group}` : ''} is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
  }

  private checkTypeMeta(d: ResourceDef, body: Obj): void {
    const av = body.apiVersion;
    const kind = body.kind;
    if (kind !== undefined && kind !== d.kind)
      throw badRequest(
        `the API version in the data (${String(av)}) does not match the expected API version (${apiVersionOf(d)})`.replace(
          /API version in the data \(.*\) does not match the expected API version \(.*\)/,
          `kind in the data (${String(kind)}) does not match the expected kind (${d.kind})`,
        ),
      );
    if (av !== undefined && av !== apiVersionOf(d))
      throw badRequest(
        `the API version in the data (${String(av)}) does not match the expected API version (${apiVersionOf(d)})`,
      );
  }

  create(
    d: ResourceDef,
    ns: string,
    body: Obj,
    opts: WriteOptions = {},
    operation: 'Update' | 'Apply' = 'Update',
  ): Entry {
    this.checkTypeMeta(d, body);
    const o = opts.bodyOwned ? body : structuredClone(body);
    decodeStrictly(d, o, opts);
    o.apiVersion = apiVersionOf(d);
    o.kind = d.kind;
    const meta = metaOf(o);
    if (d.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns)
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      meta.namespace = ns;
    } else delete meta.namespace;
    const res = storageKey(d);
    const generated =
      (meta.name === undefined || meta.name === '') &&
      typeof meta.generateName === 'string' &&
      meta.generateName !== '';
    if (generated) meta.name = this.generatedName(res, d.namespaced ? ns : '', meta.generateName as string);
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (!name)
      throw invalid(d.group, d.kind, '', [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: name or generateName is required',
          field: 'metadata.name',
        },
      ]);
    const nameErr = validateName(d, name);
    if (nameErr)
      throw invalid(d.group, d.kind, name, [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${name}": ${nameErr}`,
          field: 'metadata.name',
        },
      ]);
    this.checkNamespace(d, ns);
    if (this.store.get(res, d.namespaced ? ns : '', name)) throw alreadyExists(d.group, d.resource, name);
    const now = nowSeconds();
    meta.uid = newUid();
    meta.creationTimestamp = now;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (d.generation) meta.generation = 1;
    else delete meta.generation;
    const strategy = strategyFor(d);
    mutateOnCreate(d, ns, o, this.store);
    strategy.prepareForCreate(o, this.ctx);
    const entry = this.write(d, d.namespaced ? ns : '', name, o, undefined, opts, operation);
    if (!opts.dryRun) strategy.afterCreate(entry, this.ctx);
    return entry;
  }

  /**
   * `prefix` plus a random suffix that no stored object has yet: a taken name is drawn again, up to 8 times in all,
   * as kube-apiserver does since 1.30 (RetryGenerateName); the last draw stands and then fails as AlreadyExists.
   */
  private generatedName(res: string, ns: string, prefix: string): string {
    let name = `${prefix}${randomSuffix()}`;
    for (let tries = 1; tries < GENERATE_NAME_TRIES && this.store.get(res, ns, name); tries++)
      name = `${prefix}${randomSuffix()}`;
    return name;
  }

  /** Shared final step of every write: validation, metadata bookkeeping, no-op detection, storage. */
  private write(
    d: ResourceDef,
    ns: string,
    name: string,
    o: Obj,
    old: Entry | undefined,
    opts: WriteOptions,
    operation: 'Update' | 'Apply',
    sub?: string,
  ): Entry {
    const strategy = strategyFor(d);
    strategy.canonicalize(o);
    const meta = metaOf(o);
    const causes: StatusCause[] = validateMeta(meta);
    causes.push(...strategy.validate(o, opts));
    if (causes.length) throw invalid(d.group, d.kind, name, causes);
    if (!old) validateOnCreate(d, ns, o, this.store);
    else validateOnUpdate(d, ns, o, old.obj, this.store, sub);
    if (old) {
      const oldMeta = old.obj.metadata as Obj;
      if (d.generation) {
        const changed = !jsonEqual(specOf(o), specOf(old.obj));
        meta.generation = Number(oldMeta.generation ?? 1) + (changed ? 1 : 0);
      }
    }
    if (operation === 'Update') this.recordManager(d, o, old, opts, sub);
    if (old && jsonEqual(withoutRv(o), withoutRv(old.obj))) return old;
    if (opts.dryRun) return { ns, name, rv: old?.rv ?? 0, obj: o, json: JSON.stringify(o) };
    const res = storageKey(d);
    const entry = this.store.put(res, ns, name, o);
    strategy.afterStore(entry, this.ctx);
    if (meta.deletionTimestamp && !strategy.hasFinalizers(o)) return this.finalRemove(d, ns, name) ?? entry;
    return entry;
  }

  /** Records an `Update` managedFields entry for the writing manager. */
  private recordManager(
    d: ResourceDef,
    o: Obj,
    old: Entry | undefined,
    opts: WriteOptions,
    sub: string | undefined,
  ): void {
    const manager = opts.fieldManager ?? opts.userAgentManager ?? 'unknown';
    const { managedFields } = updateManagedFields(
      old?.obj,
      o,
      manager,
      'Update',
      apiVersionOf(d),
      nowSeconds(),
      sub ?? '',
    );
    if (managedFields.length > 0) metaOf(o).managedFields = managedFields;
    else delete metaOf(o).managedFields;
  }

  update(d: ResourceDef, ns: string, name: string, body: Obj, opts: WriteOptions = {}, sub?: string): Entry {
    this.checkTypeMeta(d, body);
    const old = this.get(d, ns, name);
    const bodyMeta = isObj(body.metadata) ? body.metadata : {};
    if (bodyMeta.name !== undefined && bodyMeta.name !== name)
      throw badRequest(
        `the name of the object (${String(bodyMeta.name)}) does not match the name on the URL (${name})`,
      );
    if (
      d.namespaced &&
      bodyMeta.namespace !== undefined &&
      bodyMeta.namespace !== '' &&
      bodyMeta.namespace !== ns
    )
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    if (failsPrecondition(bodyMeta.resourceVersion, old.rv)) throw modified(d, name);
    return this.replace(d, old, body, opts, sub, 'Update');
  }

  /** Builds the next object from the old one and a full new body, honouring subresource rules. */
  private replace(
    d: ResourceDef,
    old: Entry,
    body: Obj,
    opts: WriteOptions,
    sub: string | undefined,
    operation: 'Update' | 'Apply',
  ): Entry {
    const oldMeta = old.obj.metadata as Obj;
    const strategy = strategyFor(d);
    let o: Obj;
    if (sub === 'status') {
      o = structuredClone(old.obj);
      o.status = structuredClone(body.status);
      if (o.status === undefined) delete o.status;
      decodeStrictly(d, o, opts);
    } else {
      o = opts.bodyOwned ? body : structuredClone(body);
      decodeStrictly(d, o, opts);
      o.apiVersion = apiVersionOf(d);
      o.kind = d.kind;
      if (d.subresources.includes('status')) {
        if (old.obj.status === undefined) delete o.status;
        else o.status = structuredClone(old.obj.status);
      }
      strategy.prepareForUpdate(o, old.obj, sub, this.ctx);
    }
    const meta = metaOf(o);
    meta.name = old.name;
    if (d.namespaced) meta.namespace = old.ns;
    else delete meta.namespace;
    meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    delete meta.resourceVersion;
    if (oldMeta.generateName !== undefined) meta.generateName = oldMeta.generateName;
    if (oldMeta.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    strategy.finishUpdate(o, old.obj, sub);
    return this.write(d, old.ns, old.name, o, old, opts, operation, sub);
  }

  patch(
    d: ResourceDef,
    ns: string,
    name: string,
    kind: PatchKind,
    patchBody: unknown,
    opts: WriteOptions = {},
    sub?: string,
  ): Entry {
    const old = d.virtual ? undefined : this.store.get(storageKey(d), d.namespaced ? ns : '', name);
    const gvk = { group: d.group, version: d.version, kind: d.kind };
    if (kind === 'apply') {
      if (!opts.fieldManager)
        throw invalid('meta.k8s.io', 'PatchOptions', '', [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ]);
      if (!isObj(patchBody)) throw badRequest('the apply patch must be an object');
      this.checkTypeMeta(d, patchBody);
      const bodyName = isObj(patchBody.metadata) ? patchBody.metadata.name : undefined;
      if (bodyName !== undefined && bodyName !== name)
        throw badRequest(
          `the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`,
        );
      const applied = structuredClone(patchBody);
      metaOf(applied).name = name;
      applied.apiVersion = apiVersionOf(d);
      applied.kind = d.kind;
      if (!old && sub) throw notFound(d.group, d.resource, name);
      const { object } = serverSideApply({
        live: old?.obj,
        applied,
        manager: opts.fieldManager,
        force: !!opts.force,
        gvk,
        now: nowSeconds(),
        subresource: sub,
      });
      if (!old) return this.create(d, ns, object, opts, 'Apply');
      return this.replace(d, old, object, opts, sub, 'Apply');
    }
    if (!old) throw notFound(d.group, d.resource, name);
    let next: unknown;
    if (kind === 'merge') next = applyMergePatch(old.obj, patchBody);
    else if (kind === 'json') next = applyJsonPatch(old.obj, patchBody);
    else {
      if (!strategyFor(d).strategicMergePatch)
        throw new StatusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        );
      next = applyStrategicMergePatch(old.obj, patchBody, gvk);
    }
    if (!isObj(next)) throw badRequest('the patch did not produce an object');
    const nextMeta = isObj(next.metadata) ? next.metadata : {};
    // Here an empty resourceVersion is a precondition too: the patch wrote it.
    if (nextMeta.resourceVersion !== undefined && String(nextMeta.resourceVersion) !== String(old.rv))
      throw modified(d, name);
    if (nextMeta.name !== undefined && nextMeta.name !== name)
      throw badRequest(
        `the name of the object (${String(nextMeta.name)}) does not match the name on the URL (${name})`,
      );
    return this.replace(d, old, next, opts, sub, 'Update');
  }

  // --- scale subresource ---

  private scaleSpec(d: ResourceDef) {
    if (d.crd?.scale) return d.crd.scale;
    return {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: undefined,
    };
  }

  getScale(d: ResourceDef, e: Entry): Obj {
    const s = this.scaleSpec(d);
    const meta = e.obj.metadata as Obj;
    let selector = '';
    if (s.labelSelectorPath) selector = String(readPath(e.obj, s.labelSelectorPath) ?? '');
    else {
      const sel = (e.obj.spec as Obj | undefined)?.selector;
      if (isObj(sel) && isObj(sel.matchLabels))
        selector = Object.entries(sel.matchLabels)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',');
    }
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
        creationTimestamp: meta.creationTimestamp,
      },
      spec: { replicas: Number(readPath(e.obj, s.specReplicasPath) ?? 0) },
      status: { replicas: Number(readPath(e.obj, s.statusReplicasPath) ?? 0), selector },
    };
  }

  /** Applies a new Scale (from PUT, or a patch already applied to the current Scale). */
  setScale(d: ResourceDef, ns: string, name: string, scale: Obj, opts: WriteOptions): Obj {
    const old = this.get(d, ns, name);
    const sm = isObj(scale.metadata) ? scale.metadata : {};
    if (failsPrecondition(sm.resourceVersion, old.rv)) throw modified(d, name);
    const replicas = isObj(scale.spec) ? scale.spec.replicas : undefined;
    if (replicas !== undefined && (!Number.isInteger(replicas) || (replicas as number) < 0))
      throw invalid('autoscaling', 'Scale', name, [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
          field: 'spec.replicas',
        },
      ]);
    const o = structuredClone(old.obj);
    writePath(o, this.scaleSpec(d).specReplicasPath, replicas ?? 0);
    const entry = this.replaceKeepingStatus(d, old, o, opts);
    return this.getScale(d, entry);
  }

  private replaceKeepingStatus(d: ResourceDef, old: Entry, o: Obj, opts: WriteOptions): Entry {
    return this.replace(d, old, o, opts, undefined, 'Update');
  }

  // --- delete ---

  delete(d: ResourceDef, ns: string, name: string, opts: DeleteOptions = {}): Entry {
    const e = this.get(d, ns, name);
    const meta = e.obj.metadata as Obj;
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== meta.uid)
      throw conflict(
        d.group,
        d.resource,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`,
      );
    if (pre.resourceVersion && pre.resourceVersion !== String(e.rv))
      throw conflict(
        d.group,
        d.resource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${e.rv}`,
      );
    if (opts.dryRun) return e;
    const strategy = strategyFor(d);
    const own = strategy.delete?.(e, this.ctx, opts);
    if (own) return own;
    // Foreground and Orphan are finalizers the garbage collector (controllers/garbage-collector.ts) acts on;
    // Background removes the object now and the collector deletes its dependents after.
    const gcFinalizer = GC_FINALIZERS[opts.propagationPolicy ?? 'Background'];
    if (gcFinalizer || strategy.hasFinalizers(e.obj)) {
      if (meta.deletionTimestamp) return e;
      const o = structuredClone(e.obj);
      const m = metaOf(o);
      m.deletionTimestamp = nowSeconds();
      m.deletionGracePeriodSeconds = 0;
      if (gcFinalizer) m.finalizers = [...((m.finalizers as string[] | undefined) ?? []), gcFinalizer];
      return this.store.put(storageKey(d), e.ns, e.name, o);
    }
    return this.finalRemove(d, e.ns, e.name) ?? e;
  }

  private finalRemove(d: ResourceDef, ns: string, name: string): Entry | undefined {
    const removed = this.store.remove(storageKey(d), ns, name);
    if (!removed) return undefined;
    strategyFor(d).afterRemove(removed, this.ctx);
    if (ns) {
      const nsEntry = this.store.get('/namespaces', '', ns);
      if (nsEntry && (nsEntry.obj.metadata as Obj).deletionTimestamp) this.scheduleNamespaceFinalize(ns);
    }
    return removed;
  }

  deleteCollection(d: ResourceDef, ns: string | undefined, q: ListQuery, opts: DeleteOptions): Entry[] {
    if (!d.verbs.includes('deletecollection')) throw methodNotAllowed();
    const { entries } = this.list(d, ns, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
    const out: Entry[] = [];
    for (const e of entries) {
      try {
        out.push(this.delete(d, e.ns, e.name, { ...opts, preconditions: undefined }));
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return out;
  }

  // --- namespace lifecycle ---

  private scheduleNamespaceFinalize(ns: string): void {
    if (this.finalizingNamespaces.has(ns)) return;
    this.finalizingNamespaces.add(ns);
    setImmediate(() => {
      this.finalizingNamespaces.delete(ns);
      if (!this.closed) this.finalizeNamespace(ns);
    });
  }

  /** Deletes what a terminating namespace holds; removes the namespace once it is empty. */
  private finalizeNamespace(ns: string): void {
    const nsEntry = this.store.get('/namespaces', '', ns);
    if (!nsEntry || !(nsEntry.obj.metadata as Obj).deletionTimestamp) return;
    const seen = new Set<string>();
    for (const d of this.registry.all()) {
      const res = storageKey(d);
      if (!d.namespaced || d.virtual || seen.has(res)) continue;
      seen.add(res);
      for (const e of [...this.store.list(res, ns)]) {
        if ((e.obj.metadata as Obj).deletionTimestamp) continue;
        try {
          this.delete(d, e.ns, e.name, { propagationPolicy: 'Background' });
        } catch {
          // raced with another delete
        }
      }
    }
    if (this.store.resourcesWithObjectsIn(ns).length > 0) return; // objects with finalizers remain
    const o = structuredClone(nsEntry.obj);
    o.spec = { ...(o.spec as Obj), finalizers: [] };
    const metaFinalizers = (o.metadata as Obj).finalizers;
    if (Array.isArray(metaFinalizers) && metaFinalizers.length > 0) {
      this.store.put('/namespaces', '', ns, o);
      return;
    }
    this.store.remove('/namespaces', '', ns);
  }
}

/** True when a written object names a resourceVersion ('' names none) other than the stored one. */
function failsPrecondition(given: unknown, stored: number): boolean {
  return given !== undefined && given !== '' && String(given) !== String(stored);
}

/** 409 for a write whose resourceVersion precondition failed (optimistic concurrency). */
function modified(d: ResourceDef, name: string): StatusError {
  return conflict(
    d.group,
    d.resource,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );
}

/** What a generation bump compares: everything but metadata and status (and the type). */
function specOf(o: Obj): Obj {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** Object without its resourceVersion (for no-op detection). */
function withoutRv(o: Obj): Obj {
  const meta = { ...((o.metadata as Obj) ?? {}) };
  delete meta.resourceVersion;
  return { ...o, metadata: meta };
}

function parseRv(s: string): number {
  if (!/^\d+$/.test(s)) throw badRequest(`invalid resource version: "${s}"`);
  return Number(s);
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(tok: string): { rv: number; start: string } {
  try {
    const v = JSON.parse(Buffer.from(tok, 'base64url').toString('utf8')) as { rv?: unknown; start?: unknown };
    if (typeof v.rv === 'number' && typeof v.start === 'string') return { rv: v.rv, start: v.start };
  } catch {
    // fall through
  }
  throw badRequest('continue key is not valid: invalid continue token');
}
