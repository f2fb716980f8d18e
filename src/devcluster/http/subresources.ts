// Stage 4c: subresources: pods/log, scale, status and finalize, serviceaccounts/token. The others a real cluster
// serves by running containers (exec, attach, portforward, proxy, ...) answer 501.
import { badRequest, methodNotAllowed, StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import { patchKindOf } from '../patching.ts';
import type { Obj } from '../store.ts';
import { readDecodedBody } from './body.ts';
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
  const containers = ((pod.spec as Obj | undefined)?.containers ?? []) as Obj[];
  const c = r.query.get('container') ?? String(containers[0]?.name ?? '');
  if (!containers.some((x) => x.name === c)) throw badRequest(`container ${c} is not valid for pod ${name}`);
  const phase = (pod.status as Obj | undefined)?.phase;
  if (phase !== 'Running' && phase !== 'Succeeded' && phase !== 'Failed')
    throw badRequest(`container "${c}" in pod "${name}" is waiting to start: ContainerCreating`);
  // No container ever ran here, so a started one has written nothing.
  r.res.writeHead(200, { 'Content-Type': 'text/plain' });
  r.res.end('');
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

/** status and finalize: the object written through the subresource's rules (only its part changes). */
const objectPart: SubresourceHandler = async ({ rest }, r, ns, name) => {
  const { d, method, query: q } = r;
  const sub = r.target.subresource;
  if (method === 'GET' && sub === 'status') {
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

const HANDLERS: Record<string, SubresourceHandler> = { log, scale, status: objectPart, finalize: objectPart };

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
