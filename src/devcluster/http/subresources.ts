// Stage 4c: subresources: pods/log (the simulated containers' lines), pods/binding, pods/eviction, pods/resize, scale,
// status and finalize, serviceaccounts/token. exec, attach and portforward answer 400: no process runs in the dev
// cluster. The others (proxy, ...) answer 501.
import { badRequest, methodNotAllowed, StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import { patchKindOf } from '../patching.ts';
import { formatLog, logContainer, loggedStatus, logQuery, simulatedLog } from '../simulation/pod-log.ts';
import { bindPod } from '../simulation/scheduler.ts';
import type { Obj, StoreEvent } from '../store.ts';
import { readDecodedBody } from './body.ts';
import { evict } from './eviction.ts';
import { writeOptions } from './params.ts';
import type { ResourceDeps, ResourceRequest } from './resource-request.ts';
import { notFound, sendJson, sendObject } from './respond.ts';

type SubresourceHandler = (deps: ResourceDeps, r: ResourceRequest, ns: string, name: string) => Promise<void>;

/** Whether `r` addresses serviceaccounts/token and service-account tokens are enabled. */
export const isTokenRequest = (deps: ResourceDeps, r: ResourceRequest) =>
  r.target.subresource === 'token' &&
  r.d.resource === 'serviceaccounts' &&
  deps.serviceAccounts !== undefined;

/** TokenRequest: a token for the service account. */
export async function serveTokenRequest(deps: ResourceDeps, r: ResourceRequest): Promise<void> {
  if (r.method !== 'POST' || !r.target.name || !r.ns) throw methodNotAllowed();
  const body = await readDecodedBody(r.req);
  sendJson(r.res, 201, deps.serviceAccounts?.issue(r.ns, r.target.name, body));
}

const log: SubresourceHandler = async ({ rest }, r, ns, name) => {
  if (r.method !== 'GET') throw methodNotAllowed();
  const pod = rest.get(r.d, ns, name).obj;
  const c = logContainer(pod, r.query.get('container'));
  const q = logQuery(r.query, Date.now());
  if (q.previous)
    throw badRequest(`previous terminated container "${String(c.name)}" in pod "${name}" not found`);
  const uid = (pod.metadata as Obj).uid;
  const linesOf = (p: Obj) => simulatedLog(p, c, loggedStatus(p, c));
  let written = linesOf(pod);
  let budget = q.limitBytes ?? Number.POSITIVE_INFINITY;
  const send = (text: string): boolean => {
    const chunk = Buffer.from(text).subarray(0, Math.max(0, budget));
    budget -= chunk.length;
    if (chunk.length) r.res.write(chunk);
    return budget > 0;
  };
  r.res.writeHead(200, { 'Content-Type': 'text/plain' });
  const more = send(formatLog(written, q));
  const terminated = (p: Obj) => !!(loggedStatus(p, c).state as Obj).terminated;
  if (!q.follow || !more || terminated(pod)) {
    r.res.end();
    return;
  }
  // follow: the container's next lines as its status changes; the stream ends with the container or the pod.
  await new Promise<void>((resolve) => {
    const done = () => {
      unsubscribe();
      r.res.end();
      resolve();
    };
    const unsubscribe = rest.store.subscribe((ev: StoreEvent) => {
      if (ev.res !== '/pods' || ev.ns !== ns || ev.name !== name) return;
      if (ev.type === 'DELETED' || (ev.obj.metadata as Obj).uid !== uid) return done();
      try {
        const now = linesOf(ev.obj);
        const fresh = now.slice(written.length);
        written = now;
        if (!send(formatLog(fresh, { ...q, tailLines: undefined, sinceMs: undefined })) || terminated(ev.obj))
          done();
      } catch {
        done(); // the container has no log any more
      }
    });
    r.res.on('close', done);
  });
};

/** pods/binding: the scheduler's (or a custom scheduler's) assignment of the pod to a node. */
const binding: SubresourceHandler = async ({ rest }, r, ns, name) => {
  if (r.method !== 'POST') throw methodNotAllowed();
  const body = await readDecodedBody(r.req);
  if (!isObj(body)) throw badRequest('the request body must be a Binding object');
  const meta = isObj(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name)
    throw badRequest('name in URL does not match name in Binding object');
  const target = isObj(body.target) ? body.target : {};
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node')
    throw badRequest('Binding target kind must be Node');
  if (typeof target.name !== 'string' || !target.name)
    throw new StatusError(422, 'Invalid', `Binding "${name}" is invalid: target.name: Required value`);
  bindPod(rest, ns, name, target.name, writeOptions(r.req, r.query));
  sendJson(r.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
};

/** pods/eviction: a graceful delete unless a PodDisruptionBudget forbids it (429). */
const eviction: SubresourceHandler = async ({ rest }, r, ns, name) => {
  if (r.method !== 'POST') throw methodNotAllowed();
  evict(rest, ns, name, await readDecodedBody(r.req));
  sendJson(r.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
};

/** exec, attach, portforward: a clear refusal (the dev cluster's containers are simulated). */
export function processesNotRun(sub: string, ns: string, name: string): StatusError {
  return badRequest(
    `the dev cluster simulates containers and runs no processes: pods/${sub} is not available for pod ${ns}/${name}`,
  );
}

const noProcess: SubresourceHandler = async ({ rest }, r, ns, name) => {
  rest.get(r.d, ns, name);
  throw processesNotRun(r.target.subresource ?? '', ns, name);
};

const scale: SubresourceHandler = async ({ rest }, r, ns, name) => {
  const { d, method } = r;
  if (method === 'GET') {
    sendJson(r.res, 200, rest.getScale(d, rest.get(d, ns, name)));
    return;
  }
  const body = await readDecodedBody(r.req);
  let next: unknown = body;
  if (method === 'PATCH') {
    const kind = patchKindOf(String(r.req.headers['content-type'] ?? ''));
    next = patchScale(rest.getScale(d, rest.get(d, ns, name)), kind, body);
  } else if (method !== 'PUT') throw methodNotAllowed();
  if (!isObj(next)) throw badRequest('the request body must be a Scale object');
  sendJson(r.res, 200, rest.setScale(d, ns, name, next, writeOptions(r.req, r.query)));
};

/** status, resize and finalize: the object written through the subresource's rules (only its part changes). */
const objectPart: SubresourceHandler = async ({ rest }, r, ns, name) => {
  const { d, method, query: q } = r;
  const sub = r.target.subresource;
  if (method === 'GET' && sub !== 'finalize') {
    sendObject(r.res, r.accept, q, 200, d, rest.get(d, ns, name));
    return;
  }
  const body = await readDecodedBody(r.req);
  if (method === 'PUT') {
    if (!isObj(body)) throw badRequest('the request body must be a JSON or YAML object');
    sendObject(r.res, r.accept, q, 200, d, rest.update(d, ns, name, body, writeOptions(r.req, q), sub));
    return;
  }
  if (method === 'PATCH') {
    const kind = patchKindOf(String(r.req.headers['content-type'] ?? ''));
    sendObject(r.res, r.accept, q, 200, d, rest.patch(d, ns, name, kind, body, writeOptions(r.req, q), sub));
    return;
  }
  throw methodNotAllowed();
};

const HANDLERS: Record<string, SubresourceHandler> = {
  log,
  binding,
  eviction,
  exec: noProcess,
  attach: noProcess,
  portforward: noProcess,
  scale,
  status: objectPart,
  resize: objectPart,
  finalize: objectPart,
};

export async function serveSubresource(deps: ResourceDeps, r: ResourceRequest): Promise<void> {
  const { d, target: t } = r;
  const sub = t.subresource ?? '';
  if (!d.subresources.includes(sub)) throw notFound();
  const handler = Object.hasOwn(HANDLERS, sub) ? HANDLERS[sub] : undefined;
  if (!handler)
    throw new StatusError(
      501,
      'NotImplemented',
      `the dev cluster does not run containers: ${d.resource}/${sub} is not available`,
    );
  await handler(deps, r, t.namespace ?? '', t.name ?? '');
}

function patchScale(current: Obj, kind: string, body: unknown): unknown {
  if (kind === 'json') return applyJsonPatch(current, body);
  if (kind === 'merge') return applyMergePatch(current, body);
  if (kind === 'strategic')
    return applyStrategicMergePatch(current, body, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  throw new StatusError(
    415,
    'UnsupportedMediaType',
    'apply patches are not supported on the scale subresource',
  );
}
