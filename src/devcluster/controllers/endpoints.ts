// The endpoints and endpointslice controllers: for each Service with a selector, an Endpoints object of the same
// name and a discovery.k8s.io/v1 EndpointSlice (owned by the Service) listing the pods it selects that have an IP,
// ready or not, with their target ports resolved (named ports through the pods' container ports). Services without
// a selector keep the Endpoints their users write.
import { StatusError } from '../../k8s/status.ts';
import { isObj, jsonEqual } from '../meta.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import {
  type Controller,
  type ControllerContext,
  FIELD_MANAGER,
  objectKey,
  ownKey,
  splitKey,
} from './framework.ts';
import { controllerRef, isReady, selectorMatches } from './pods.ts';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const SLICE_MANAGER = 'endpointslice-controller.k8s.io';

const selectorOf = (svc: Obj): Obj | undefined => {
  const sel = (svc.spec as Obj | undefined)?.selector;
  return isObj(sel) && Object.keys(sel).length > 0 ? sel : undefined;
};

/** The services of the pod's namespace that select it, before or after the change. */
function servicesOf(ctx: ControllerContext, ev: StoreEvent): string[] {
  const out: string[] = [];
  for (const s of ctx.store.list('/services', ev.ns)) {
    const sel = selectorOf(s.obj);
    if (!sel) continue;
    const labels = [ev.obj, ev.prev].map((p) => (p?.metadata as Obj | undefined)?.labels);
    if (labels.some((l) => l && selectorMatches({ matchLabels: sel }, l))) out.push(objectKey(s.ns, s.name));
  }
  return out;
}

interface Member {
  pod: Obj;
  ip: string;
  ready: boolean;
  ports: Obj[];
}

/** The service's ports as this pod serves them; undefined when a named target port is not among its containers'. */
function resolvePorts(svc: Obj, pod: Obj): Obj[] {
  const ports = Array.isArray((svc.spec as Obj).ports)
    ? ((svc.spec as Obj).ports as unknown[]).filter(isObj)
    : [];
  const containerPorts = (
    Array.isArray((pod.spec as Obj).containers) ? ((pod.spec as Obj).containers as Obj[]) : []
  ).flatMap((c) => (Array.isArray(c.ports) ? c.ports.filter(isObj) : []));
  const out: Obj[] = [];
  for (const p of ports) {
    const target = p.targetPort ?? p.port;
    const port =
      typeof target === 'number'
        ? target
        : (containerPorts.find((c) => c.name === target)?.containerPort as number | undefined);
    if (port === undefined) continue;
    out.push({
      ...(p.name ? { name: p.name } : {}),
      port,
      protocol: p.protocol ?? 'TCP',
      ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    });
  }
  return out;
}

function members(ctx: ControllerContext, svc: Entry): Member[] {
  const sel = selectorOf(svc.obj) as Obj;
  const publishNotReady = (svc.obj.spec as Obj).publishNotReadyAddresses === true;
  const out: Member[] = [];
  for (const p of ctx.store.list('/pods', svc.ns)) {
    const status = (p.obj.status ?? {}) as Obj;
    const meta = p.obj.metadata as Obj;
    if (!selectorMatches({ matchLabels: sel }, meta.labels)) continue;
    if (typeof status.podIP !== 'string' || !status.podIP || meta.deletionTimestamp) continue;
    if (status.phase === 'Succeeded' || status.phase === 'Failed') continue;
    out.push({
      pod: p.obj,
      ip: status.podIP,
      ready: publishNotReady || isReady(p.obj),
      ports: resolvePorts(svc.obj, p.obj),
    });
  }
  return out.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
}

function address(m: Member, svcName: string): Obj {
  const meta = m.pod.metadata as Obj;
  const spec = m.pod.spec as Obj;
  return {
    ip: m.ip,
    ...(spec.hostname && spec.subdomain === svcName ? { hostname: spec.hostname } : {}),
    ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    targetRef: { kind: 'Pod', namespace: meta.namespace, name: meta.name, uid: meta.uid },
  };
}

/** Endpoints subsets: members grouped by their resolved port list, as kube's controller repacks them. */
function subsets(ms: Member[], svcName: string): Obj[] {
  const groups = new Map<string, { ports: Obj[]; ready: Obj[]; notReady: Obj[] }>();
  for (const m of ms) {
    if (m.ports.length === 0) continue;
    const key = JSON.stringify(m.ports);
    let g = groups.get(key);
    if (!g) {
      g = { ports: m.ports, ready: [], notReady: [] };
      groups.set(key, g);
    }
    (m.ready ? g.ready : g.notReady).push(address(m, svcName));
  }
  return [...groups.values()].map((g) => ({
    ...(g.ready.length ? { addresses: g.ready } : {}),
    ...(g.notReady.length ? { notReadyAddresses: g.notReady } : {}),
    ports: g.ports,
  }));
}

function write(
  ctx: ControllerContext,
  res: string,
  group: string,
  resource: string,
  ns: string,
  name: string,
  next: Obj,
): void {
  const d = ctx.def(group, resource);
  const cur = ctx.store.get(res, ns, name);
  if (!cur) {
    ctx.rest.create(d, ns, next, { fieldManager: FIELD_MANAGER });
    return;
  }
  const merged = {
    ...cur.obj,
    ...next,
    metadata: { ...(cur.obj.metadata as Obj), ...(next.metadata as Obj) },
  };
  if (jsonEqual(merged, cur.obj)) return;
  (merged.metadata as Obj).resourceVersion = String(cur.rv);
  ctx.rest.update(d, ns, name, merged, { fieldManager: FIELD_MANAGER });
}

function syncEndpoints(ctx: ControllerContext, svc: Entry, ms: Member[]): void {
  const labels = { ...(((svc.obj.metadata as Obj).labels as Obj | undefined) ?? {}) };
  if ((svc.obj.spec as Obj).clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
  const cur = ctx.store.get('/endpoints', svc.ns, svc.name);
  const subs = subsets(ms, svc.name);
  const next: Obj = { metadata: { name: svc.name, namespace: svc.ns, labels }, subsets: subs };
  if (
    cur &&
    jsonEqual(cur.obj.subsets ?? [], subs) &&
    jsonEqual((cur.obj.metadata as Obj).labels ?? {}, labels)
  )
    return;
  write(
    ctx,
    '/endpoints',
    '',
    'endpoints',
    svc.ns,
    svc.name,
    subs.length ? next : { ...next, subsets: undefined },
  );
}

function syncSlice(ctx: ControllerContext, svc: Entry, ms: Member[]): void {
  if (!ctx.registry.anyVersion('discovery.k8s.io', 'endpointslices')) return;
  const res = 'discovery.k8s.io/endpointslices';
  const mine = ctx.store.list(res, svc.ns).filter((s) => {
    const l = ((s.obj.metadata as Obj).labels ?? {}) as Obj;
    return l[SERVICE_NAME_LABEL] === svc.name && l[MANAGED_BY_LABEL] === SLICE_MANAGER;
  });
  const ports = ms.find((m) => m.ports.length)?.ports ?? [];
  const body: Obj = {
    metadata: {
      labels: {
        ...(((svc.obj.metadata as Obj).labels as Obj | undefined) ?? {}),
        [SERVICE_NAME_LABEL]: svc.name,
        [MANAGED_BY_LABEL]: SLICE_MANAGER,
      },
      ownerReferences: [controllerRef(svc.obj)],
    },
    addressType: 'IPv4',
    endpoints: ms.map((m) => {
      const a = address(m, svc.name);
      return {
        addresses: [m.ip],
        conditions: { ready: m.ready, serving: m.ready, terminating: false },
        ...(a.hostname ? { hostname: a.hostname } : {}),
        ...(a.nodeName ? { nodeName: a.nodeName } : {}),
        targetRef: a.targetRef,
      };
    }),
    ports,
  };
  const [first, ...extra] = mine;
  for (const s of extra) ctx.rest.delete(ctx.def('discovery.k8s.io', 'endpointslices'), s.ns, s.name);
  if (first) write(ctx, res, 'discovery.k8s.io', 'endpointslices', svc.ns, first.name, body);
  else
    ctx.rest.create(
      ctx.def('discovery.k8s.io', 'endpointslices'),
      svc.ns,
      { ...body, metadata: { ...(body.metadata as Obj), generateName: `${svc.name}-` } },
      { fieldManager: FIELD_MANAGER },
    );
}

export function endpointsController(ctx: ControllerContext): Controller {
  return {
    name: 'endpoints',
    watches: [
      { res: '/services', keys: ownKey },
      { res: '/endpoints', keys: ownKey },
      { res: '/pods', keys: (ev) => servicesOf(ctx, ev) },
    ],
    reconcile(key, c) {
      const { ns, name } = splitKey(key);
      const svc = c.store.get('/services', ns, name);
      if (!svc) {
        try {
          if (c.store.get('/endpoints', ns, name)) c.rest.delete(c.def('', 'endpoints'), ns, name);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
        return undefined;
      }
      if (!selectorOf(svc.obj) || (svc.obj.metadata as Obj).deletionTimestamp) return undefined;
      const ms = members(c, svc);
      syncEndpoints(c, svc, ms);
      syncSlice(c, svc, ms);
      return undefined;
    },
  };
}
