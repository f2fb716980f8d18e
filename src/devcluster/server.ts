// HTTP front of the dev cluster: bearer-token check, routing of Kubernetes API paths, body decoding
// (JSON, YAML, protobuf), content negotiation (JSON, Table, aggregated discovery) and Status errors.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { decodeJson, decodeYaml } from '../k8s/bounded-decode.ts';
import {
  badRequest,
  methodNotAllowed,
  notFoundMessage,
  requestEntityTooLarge,
  StatusError,
  toStatus,
  unauthorized,
  unsupportedMediaType,
} from '../k8s/status.ts';
import { isObj, nowSeconds } from './meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from './patch/index.ts';
import { patchKindOf } from './patching.ts';
import type { Registry } from './registry.ts';
import type { ResourceDef } from './resources.ts';
import type { DeleteOptions, ListQuery, Rest, WriteOptions } from './rest.ts';
import type { ServiceAccounts } from './serviceaccounts.ts';
import type { Obj } from './store.ts';
import type { Watches } from './watch.ts';

const MAX_BODY = 3 * 1024 * 1024;

export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.1',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-05-15T00:00:00Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: `linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

/** Optional engines plugged in from sibling modules (protobuf bodies, Table output, OpenAPI documents). */
export interface Plugins {
  decodeProtobuf?: (body: Uint8Array) => Record<string, unknown>;
  toTable?: (d: ResourceDef, objects: Obj[], opts: { includeObject?: string; listMeta?: Obj }) => Obj;
  openapi?: (path: string, registry: Registry) => { body: string; contentType: string } | undefined;
}

export interface HandlerDeps {
  rest: Rest;
  registry: Registry;
  watches: Watches;
  token: string;
  logger?: Logger;
  plugins: Plugins;
  /** Service-account tokens (TokenRequest, authentication, RBAC); without it only `token` is accepted. */
  serviceAccounts?: ServiceAccounts;
}

interface Target {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  legacyWatch: boolean;
}

function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendStatus(res: ServerResponse, err: unknown): void {
  const s = toStatus(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, s.code, s);
}

/** Reads the request body; past the limit it keeps draining (bounded) so the client can read the 413. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > MAX_BODY;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      if (size > 4 * MAX_BODY) req.destroy();
      if (!tooLarge) chunks.push(c);
    });
    req.on('end', () => (tooLarge ? reject(requestEntityTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** Parses a path below /api/v1 or /apis/g/v the way the Kubernetes request-info resolver does. */
function parseResourcePath(parts: string[], group: string, version: string): Target | undefined {
  let p = parts;
  let legacyWatch = false;
  if (p[0] === 'watch') {
    legacyWatch = true;
    p = p.slice(1);
  }
  if (p.length === 0) return undefined;
  let namespace: string | undefined;
  if (p[0] === 'namespaces' && p.length > 1) {
    namespace = p[1];
    if (p.length > 2 && p[2] !== 'status' && p[2] !== 'finalize') p = p.slice(2);
    else return { group, version, resource: 'namespaces', name: p[1], subresource: p[2], legacyWatch };
  }
  if (p.length > 3) return undefined;
  return { group, version, namespace, resource: p[0], name: p[1], subresource: p[2], legacyWatch };
}

function wantsAggregated(accept: string): string | undefined {
  for (const part of accept.split(',')) {
    if (!part.includes('as=APIGroupDiscoveryList') || !part.includes('g=apidiscovery.k8s.io')) continue;
    const v = /;\s*v=(v2beta1|v2)\b/.exec(part)?.[1];
    if (v) return v;
  }
  return undefined;
}

function acceptsJson(accept: string): boolean {
  if (!accept) return true;
  return accept.split(',').some((p) => {
    const t = p.split(';')[0].trim();
    return (
      t === 'application/json' || t === '*/*' || t === 'application/*' || t === 'application/yaml' || t === ''
    );
  });
}

function wantsTable(accept: string): boolean {
  return accept.split(',').some((p) => p.includes('as=Table') && p.includes('g=meta.k8s.io'));
}

function watchRv(v: string | null): string | undefined {
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badRequest(`invalid resource version: "${v}"`);
  return v;
}

const boolParam = (v: string | null) => v === 'true' || v === '1';

function intParam(v: string | null, name: string): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid ${name}: "${v}" is not an integer`);
  return Number(v);
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { rest, registry, plugins } = deps;
  const expected = Buffer.from(`Bearer ${deps.token}`);

  const authenticated = (req: IncomingMessage): boolean => {
    const h = Buffer.from(req.headers.authorization ?? '');
    return h.length === expected.length && timingSafeEqual(h, expected);
  };

  const decodeBody = async (req: IncomingMessage, raw: Buffer): Promise<unknown> => {
    const ct = String(req.headers['content-type'] ?? 'application/json')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (raw.length === 0) return undefined;
    if (ct === 'application/vnd.kubernetes.protobuf') {
      if (!plugins.decodeProtobuf) throw unsupportedMediaType(ct);
      return plugins.decodeProtobuf(new Uint8Array(raw));
    }
    const text = raw.toString('utf8');
    const yamlish = ct === 'application/yaml' || ct === 'application/apply-patch+yaml' || ct === 'text/yaml';
    if (!yamlish && !ct.endsWith('json') && ct !== '' && ct !== '*/*') throw unsupportedMediaType(ct);
    return yamlish ? decodeYaml(text) : decodeJson(text);
  };

  const writeOptions = (req: IncomingMessage, q: URLSearchParams): WriteOptions => {
    const dryRun = q.getAll('dryRun');
    if (dryRun.some((v) => v !== 'All')) throw badRequest(`Invalid value: dryRun: supported values: "All"`);
    const fv = q.get('fieldValidation');
    if (fv && !['Strict', 'Warn', 'Ignore'].includes(fv))
      throw badRequest(
        `fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`,
      );
    const ua = String(req.headers['user-agent'] ?? 'unknown');
    return {
      dryRun: dryRun.length > 0,
      fieldManager: q.get('fieldManager') ?? undefined,
      force: boolParam(q.get('force')),
      fieldValidation: fv ?? undefined,
      userAgentManager: ua.split('/')[0] || 'unknown',
    };
  };

  const presentEntryJson = (
    d: ResourceDef,
    e: { obj: Obj; json: string; ns: string; name: string; rv: number },
  ) => rest.present(d, e).json;

  const sendObject = (
    res: ServerResponse,
    req: IncomingMessage,
    code: number,
    d: ResourceDef,
    e: Parameters<typeof presentEntryJson>[1],
  ) => {
    const accept = String(req.headers.accept ?? '');
    if (wantsTable(accept) && plugins.toTable) {
      sendJson(
        res,
        code,
        plugins.toTable(d, [rest.present(d, e).obj], { includeObject: includeObject(req) }),
      );
      return;
    }
    sendJson(res, code, presentEntryJson(d, e));
  };

  const includeObject = (req: IncomingMessage) =>
    new URL(req.url ?? '/', 'https://x').searchParams.get('includeObject') ?? undefined;

  const handleResourceAsAdmin = async (
    req: IncomingMessage,
    res: ServerResponse,
    t: Target,
    q: URLSearchParams,
  ) => {
    const d = registry.find(t.group, t.version, t.resource);
    // A cluster-scoped resource has no route under /namespaces/{ns}/ (the namespace itself is parsed without one).
    if (!d || (t.namespace !== undefined && !d.namespaced))
      throw notFoundMessage('the server could not find the requested resource');
    const method = req.method ?? 'GET';
    const ns = d.namespaced ? t.namespace : undefined;
    const accept = String(req.headers.accept ?? '');
    if (!acceptsJson(accept) && !wantsTable(accept))
      throw new StatusError(
        406,
        'NotAcceptable',
        `only the following media types are accepted: application/json, application/yaml`,
      );

    if (d.virtual) {
      if (method !== 'POST' || t.name) throw methodNotAllowed();
      const body = await decodeBody(req, await readBody(req));
      sendJson(res, 201, review(d, isObj(body) ? body : {}, deps.token));
      return;
    }

    if (t.subresource === 'token' && d.resource === 'serviceaccounts' && deps.serviceAccounts) {
      if (method !== 'POST' || !t.name || !ns) throw methodNotAllowed();
      const body = await decodeBody(req, await readBody(req));
      sendJson(res, 201, deps.serviceAccounts.issue(ns, t.name, body));
      return;
    }
    if (t.subresource) {
      await handleSubresource(req, res, d, t, q, method);
      return;
    }

    if (t.legacyWatch || (method === 'GET' && !t.name && boolParam(q.get('watch')))) {
      const sel = rest.parseSelectors(d, {
        labelSelector: q.get('labelSelector') ?? '',
        fieldSelector: q.get('fieldSelector') ?? '',
      });
      if (t.name) sel.fields.push({ field: 'metadata.name', operator: 'Equals', value: t.name });
      const toTable = plugins.toTable;
      const includeObj = q.get('includeObject') ?? undefined;
      deps.watches.serve(res, d, ns, sel, {
        render:
          wantsTable(accept) && toTable ? (o) => toTable(d, [o], { includeObject: includeObj }) : undefined,
        resourceVersion: watchRv(q.get('resourceVersion')),
        allowWatchBookmarks: boolParam(q.get('allowWatchBookmarks')),
        timeoutSeconds: intParam(q.get('timeoutSeconds'), 'timeoutSeconds'),
        sendInitialEvents: boolParam(q.get('sendInitialEvents')),
      });
      return;
    }

    switch (method) {
      case 'GET': {
        if (t.name) {
          sendObject(res, req, 200, d, rest.get(d, ns ?? '', t.name));
          return;
        }
        const lq: ListQuery = {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          limit: intParam(q.get('limit'), 'limit'),
          continue: q.get('continue') ?? undefined,
          resourceVersion: q.get('resourceVersion') ?? undefined,
          resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
        };
        const r = rest.list(d, ns, lq);
        const listMeta: Obj = { resourceVersion: String(r.rv) };
        if (r.continue) listMeta.continue = r.continue;
        if (r.remainingItemCount !== undefined) listMeta.remainingItemCount = r.remainingItemCount;
        if (wantsTable(accept) && plugins.toTable) {
          sendJson(
            res,
            200,
            plugins.toTable(
              d,
              r.entries.map((e) => rest.present(d, e).obj),
              { includeObject: q.get('includeObject') ?? undefined, listMeta },
            ),
          );
          return;
        }
        const apiVersion = d.group ? `${d.group}/${d.version}` : d.version;
        const head = `{"kind":"${d.kind}List","apiVersion":"${apiVersion}","metadata":${JSON.stringify(listMeta)},"items":[`;
        sendJson(res, 200, `${head}${r.entries.map((e) => presentEntryJson(d, e)).join(',')}]}`);
        return;
      }
      case 'POST': {
        if (t.name) throw methodNotAllowed();
        const body = await decodeBody(req, await readBody(req));
        if (!isObj(body)) throw badRequest('the request body must be a JSON or YAML object');
        const e = rest.create(d, ns ?? '', body, writeOptions(req, q));
        sendObject(res, req, 201, d, e);
        return;
      }
      case 'PUT': {
        if (!t.name) throw methodNotAllowed();
        const body = await decodeBody(req, await readBody(req));
        if (!isObj(body)) throw badRequest('the request body must be a JSON or YAML object');
        sendObject(res, req, 200, d, rest.update(d, ns ?? '', t.name, body, writeOptions(req, q)));
        return;
      }
      case 'PATCH': {
        if (!t.name) throw methodNotAllowed();
        const kind = patchKindOf(String(req.headers['content-type'] ?? ''));
        const body = await decodeBody(req, await readBody(req));
        const existed = rest.store.get(`${d.group}/${d.resource}`, ns ?? '', t.name) !== undefined;
        const e = rest.patch(d, ns ?? '', t.name, kind, body, writeOptions(req, q));
        sendObject(res, req, existed ? 200 : 201, d, e);
        return;
      }
      case 'DELETE': {
        const opts = deleteOptions(await decodeBody(req, await readBody(req)), q);
        if (!t.name) {
          const deleted = rest.deleteCollection(
            d,
            ns,
            {
              labelSelector: q.get('labelSelector') ?? undefined,
              fieldSelector: q.get('fieldSelector') ?? undefined,
            },
            opts,
          );
          const apiVersion = d.group ? `${d.group}/${d.version}` : d.version;
          sendJson(
            res,
            200,
            `{"kind":"${d.kind}List","apiVersion":"${apiVersion}","metadata":{"resourceVersion":"${rest.store.currentRv}"},"items":[${deleted.map((e) => presentEntryJson(d, e)).join(',')}]}`,
          );
          return;
        }
        sendObject(res, req, 200, d, rest.delete(d, ns ?? '', t.name, opts));
        return;
      }
      default:
        throw methodNotAllowed();
    }
  };

  const handleSubresource = async (
    req: IncomingMessage,
    res: ServerResponse,
    d: ResourceDef,
    t: Target,
    q: URLSearchParams,
    method: string,
  ) => {
    const sub = t.subresource ?? '';
    const name = t.name ?? '';
    const ns = t.namespace ?? '';
    if (!d.subresources.includes(sub))
      throw notFoundMessage('the server could not find the requested resource');
    if (sub === 'log') {
      if (method !== 'GET') throw methodNotAllowed();
      const pod = rest.get(d, ns, name).obj;
      const containers = ((pod.spec as Obj | undefined)?.containers ?? []) as Obj[];
      const c = q.get('container') ?? String(containers[0]?.name ?? '');
      if (!containers.some((x) => x.name === c))
        throw badRequest(`container ${c} is not valid for pod ${name}`);
      const phase = (pod.status as Obj | undefined)?.phase;
      if (phase !== 'Running' && phase !== 'Succeeded' && phase !== 'Failed')
        throw badRequest(`container "${c}" in pod "${name}" is waiting to start: ContainerCreating`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('');
      return;
    }
    if (sub === 'scale') {
      if (method === 'GET') {
        sendJson(res, 200, rest.getScale(d, rest.get(d, ns, name)));
        return;
      }
      const body = await decodeBody(req, await readBody(req));
      let scale: unknown = body;
      if (method === 'PATCH') {
        const kind = patchKindOf(String(req.headers['content-type'] ?? ''));
        const current = rest.getScale(d, rest.get(d, ns, name));
        scale = applyPatchTo(current, kind, body);
      } else if (method !== 'PUT') throw methodNotAllowed();
      if (!isObj(scale)) throw badRequest('the request body must be a Scale object');
      sendJson(res, 200, rest.setScale(d, ns, name, scale, writeOptions(req, q)));
      return;
    }
    if (sub === 'status' || sub === 'finalize') {
      if (method === 'GET' && sub === 'status') {
        sendObject(res, req, 200, d, rest.get(d, ns, name));
        return;
      }
      const body = await decodeBody(req, await readBody(req));
      if (method === 'PUT') {
        if (!isObj(body)) throw badRequest('the request body must be a JSON or YAML object');
        sendObject(res, req, 200, d, rest.update(d, ns, name, body, writeOptions(req, q), sub));
        return;
      }
      if (method === 'PATCH') {
        const kind = patchKindOf(String(req.headers['content-type'] ?? ''));
        sendObject(res, req, 200, d, rest.patch(d, ns, name, kind, body, writeOptions(req, q), sub));
        return;
      }
      throw methodNotAllowed();
    }
    throw new StatusError(
      501,
      'NotImplemented',
      `the dev cluster does not run containers: ${d.resource}/${sub} is not available`,
    );
  };

  return (req, res) => {
    const started = Date.now();
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://devcluster');
      const path = url.pathname;
      const parts = path.split('/').filter(Boolean);
      if (path === '/healthz' || path === '/livez' || path === '/readyz') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      }
      if (path === '/version' || path === '/version/') {
        sendJson(res, 200, VERSION_INFO);
        return;
      }
      const admin = authenticated(req);
      const sa = admin ? undefined : deps.serviceAccounts?.authenticate(req.headers.authorization);
      if (!admin && !sa) throw unauthorized();
      // Service accounts get what RBAC grants them; discovery stays open to every authenticated caller.
      const handleResource = async (
        req: IncomingMessage,
        res: ServerResponse,
        t: Target,
        q: URLSearchParams,
      ) => {
        if (sa) deps.serviceAccounts?.authorize(sa, req.method ?? 'GET', t, q);
        return handleResourceAsAdmin(req, res, t, q);
      };
      const accept = String(req.headers.accept ?? '');
      if (parts[0] === 'api') {
        if (parts.length === 1) {
          const agg = wantsAggregated(accept);
          if (agg) return sendAggregated(res, registry.aggregated(true, `apidiscovery.k8s.io/${agg}`), agg);
          return sendJson(res, 200, registry.apiVersions());
        }
        if (parts[1] !== 'v1') throw notFoundMessage('the server could not find the requested resource');
        if (parts.length === 2) return sendJson(res, 200, registry.apiResourceList('', 'v1'));
        const t = parseResourcePath(parts.slice(2), '', 'v1');
        if (!t) throw notFoundMessage('the server could not find the requested resource');
        return await handleResource(req, res, t, url.searchParams);
      }
      if (parts[0] === 'apis') {
        if (parts.length === 1) {
          const agg = wantsAggregated(accept);
          if (agg) return sendAggregated(res, registry.aggregated(false, `apidiscovery.k8s.io/${agg}`), agg);
          return sendJson(res, 200, registry.apiGroupList());
        }
        const g = registry.groups().find((x) => x.name === parts[1] && x.name !== '');
        if (!g) throw notFoundMessage('the server could not find the requested resource');
        if (parts.length === 2)
          return sendJson(res, 200, {
            kind: 'APIGroup',
            apiVersion: 'v1',
            ...registry.apiGroup(g.name, g.versions),
          });
        if (!registry.hasGroupVersion(parts[1], parts[2]))
          throw notFoundMessage('the server could not find the requested resource');
        if (parts.length === 3) return sendJson(res, 200, registry.apiResourceList(parts[1], parts[2]));
        const t = parseResourcePath(parts.slice(3), parts[1], parts[2]);
        if (!t) throw notFoundMessage('the server could not find the requested resource');
        return await handleResource(req, res, t, url.searchParams);
      }
      if (parts[0] === 'openapi' && plugins.openapi) {
        const doc = plugins.openapi(path, registry);
        if (doc) {
          res.writeHead(200, {
            'Content-Type': doc.contentType,
            'Content-Length': Buffer.byteLength(doc.body),
          });
          res.end(doc.body);
          return;
        }
      }
      throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
    })()
      .catch((err: unknown) => {
        if (!(err instanceof StatusError))
          deps.logger?.error({ err, path: req.url?.split('?')[0] }, 'devcluster request failed');
        sendStatus(res, err);
      })
      .finally(() => {
        deps.logger?.debug(
          {
            method: req.method,
            path: req.url?.split('?')[0],
            status: res.statusCode,
            ms: Date.now() - started,
          },
          'devcluster request',
        );
      });
  };
}

function sendAggregated(res: ServerResponse, doc: Obj, v: string): void {
  sendJson(res, 200, doc, `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
}

function applyPatchTo(current: Obj, kind: string, body: unknown): unknown {
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

function deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const b = isObj(body) ? body : {};
  const pre = isObj(b.preconditions) ? b.preconditions : {};
  let propagation = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  if (b.orphanDependents === true || q.get('orphanDependents') === 'true') propagation = 'Orphan';
  if (propagation && !['Orphan', 'Background', 'Foreground'].includes(propagation))
    throw badRequest(
      `propagationPolicy: Unsupported value: "${propagation}": supported values: "Orphan", "Background", "Foreground"`,
    );
  const dryRun = Array.isArray(b.dryRun) ? b.dryRun.length > 0 : q.getAll('dryRun').length > 0;
  return {
    propagationPolicy: propagation,
    preconditions: {
      uid: typeof pre.uid === 'string' ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
    },
    dryRun,
  };
}

const ADMIN_USER = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

/** Answers the authorization/authentication review resources: the dev cluster's token is a cluster admin. */
function review(d: ResourceDef, body: Obj, token: string): Obj {
  const base: Obj = {
    kind: d.kind,
    apiVersion: `${d.group}/${d.version}`,
    metadata: { creationTimestamp: null },
    spec: body.spec ?? {},
  };
  switch (d.resource) {
    case 'selfsubjectaccessreviews':
    case 'subjectaccessreviews':
      return {
        ...base,
        status: { allowed: true, reason: 'the dev cluster token is a cluster administrator' },
      };
    case 'selfsubjectrulesreviews':
      return {
        ...base,
        status: {
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          incomplete: false,
        },
      };
    case 'selfsubjectreviews':
      return {
        kind: d.kind,
        apiVersion: base.apiVersion,
        metadata: { creationTimestamp: nowSeconds() },
        status: { userInfo: ADMIN_USER },
      };
    case 'tokenreviews': {
      const spec = isObj(body.spec) ? body.spec : {};
      const ok = spec.token === token;
      return {
        ...base,
        spec: { ...spec, token: undefined },
        status: ok ? { authenticated: true, user: ADMIN_USER } : { authenticated: false },
      };
    }
    default:
      throw methodNotAllowed();
  }
}
