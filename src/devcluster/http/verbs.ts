// Stage 4b: the handlers of a resource's verbs: list, get, create, update, patch, delete, deletecollection, watch.
import { badRequest, methodNotAllowed } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import { patchKindOf } from '../patching.ts';
import { storageKey } from '../resources.ts';
import type { WriteOptions } from '../rest.ts';
import type { Obj } from '../store.ts';
import { toTable } from '../table/index.ts';
import type { WatchSink } from '../watch.ts';
import { readDecodedBody } from './body.ts';
import { boolParam, deleteOptions, intParam, listQuery, watchRv, writeOptions } from './params.ts';
import type { ResourceDeps, ResourceRequest } from './resource-request.ts';
import { present, sendJson, sendList, sendObject, wantsTable } from './respond.ts';

type VerbHandler = (deps: ResourceDeps, r: ResourceRequest) => Promise<void> | void;

/** Whether the request is a watch (`/watch/...` paths or `?watch=true` on a collection). */
export const isWatch = (r: Pick<ResourceRequest, 'target' | 'method' | 'query'>) =>
  r.target.legacyWatch || (r.method === 'GET' && !r.target.name && boolParam(r.query.get('watch')));

/** What a watch needs of its request (an HTTP request or a WebSocket upgrade). */
export type WatchRequest = Pick<ResourceRequest, 'd' | 'query' | 'target' | 'accept' | 'ns'>;

export function watch({ rest, watches }: ResourceDeps, r: WatchRequest, sink: WatchSink): void {
  const { d, query: q, target: t } = r;
  const sel = rest.parseSelectors(d, {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
  });
  if (t.name) sel.fields.push({ field: 'metadata.name', operator: 'Equals', value: t.name });
  const includeObject = q.get('includeObject') ?? undefined;
  watches.serve(sink, d, r.ns, sel, {
    render: wantsTable(r.accept) ? (o) => toTable(d, [o], { includeObject }) : undefined,
    resourceVersion: watchRv(q.get('resourceVersion')),
    allowWatchBookmarks: boolParam(q.get('allowWatchBookmarks')),
    timeoutSeconds: intParam(q.get('timeoutSeconds'), 'timeoutSeconds'),
    sendInitialEvents: boolParam(q.get('sendInitialEvents')),
  });
}

function list({ rest }: ResourceDeps, r: ResourceRequest): void {
  const { d, query: q } = r;
  const result = rest.list(d, r.ns, listQuery(q));
  const listMeta: Obj = { resourceVersion: String(result.rv) };
  if (result.continue) listMeta.continue = result.continue;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  if (wantsTable(r.accept)) {
    const objects = result.entries.map((e) => present(d, e).obj);
    sendJson(
      r.res,
      200,
      toTable(d, objects, { includeObject: q.get('includeObject') ?? undefined, listMeta }),
    );
    return;
  }
  sendList(r.res, d, listMeta, result.entries);
}

const get: VerbHandler = (deps, r) => {
  if (!r.target.name) return list(deps, r);
  sendObject(r.res, r.accept, r.query, 200, r.d, deps.rest.get(r.d, r.ns ?? '', r.target.name));
};

/** The body of a create or update: a JSON or YAML object. */
async function objectBody(r: ResourceRequest): Promise<Obj> {
  const body = await readDecodedBody(r.req);
  if (!isObj(body)) throw badRequest('the request body must be a JSON or YAML object');
  return body;
}

/** The write's warnings as `Warning: 299 - "..."` headers, as kube-apiserver sends them. */
function sendWarnings(r: ResourceRequest, opts: WriteOptions): void {
  if (opts.warnings?.length)
    r.res.setHeader(
      'Warning',
      opts.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
}

const create: VerbHandler = async ({ rest }, r) => {
  if (r.target.name) throw methodNotAllowed();
  const body = await objectBody(r);
  const opts = { ...writeOptions(r.req, r.query), bodyOwned: true };
  const e = rest.create(r.d, r.ns ?? '', body, opts);
  sendWarnings(r, opts);
  sendObject(r.res, r.accept, r.query, 201, r.d, e);
};

const update: VerbHandler = async ({ rest }, r) => {
  const name = r.target.name;
  if (!name) throw methodNotAllowed();
  const body = await objectBody(r);
  const opts = { ...writeOptions(r.req, r.query), bodyOwned: true };
  const e = rest.update(r.d, r.ns ?? '', name, body, opts);
  sendWarnings(r, opts);
  sendObject(r.res, r.accept, r.query, 200, r.d, e);
};

const patch: VerbHandler = async ({ rest }, r) => {
  const { d, target: t } = r;
  if (!t.name) throw methodNotAllowed();
  const kind = patchKindOf(String(r.req.headers['content-type'] ?? ''));
  const body = await readDecodedBody(r.req);
  // Server-side apply of a missing object creates it (201).
  const existed = rest.store.get(storageKey(d), r.ns ?? '', t.name) !== undefined;
  const opts = writeOptions(r.req, r.query);
  const e = rest.patch(d, r.ns ?? '', t.name, kind, body, opts);
  sendWarnings(r, opts);
  sendObject(r.res, r.accept, r.query, existed ? 200 : 201, d, e);
};

const remove: VerbHandler = async ({ rest }, r) => {
  const { d, query: q, target: t } = r;
  const opts = deleteOptions(await readDecodedBody(r.req), q);
  if (t.name) {
    sendObject(r.res, r.accept, q, 200, d, rest.delete(d, r.ns ?? '', t.name, opts));
    return;
  }
  const selectors = {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
  };
  const deleted = rest.deleteCollection(d, r.ns, selectors, opts);
  sendList(r.res, d, { resourceVersion: String(rest.store.currentRv) }, deleted);
};

/** Handlers by HTTP method (a request without a name addresses the collection). */
export const VERB_HANDLERS: Record<string, VerbHandler> = {
  GET: get,
  POST: create,
  PUT: update,
  PATCH: patch,
  DELETE: remove,
};
