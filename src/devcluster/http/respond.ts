// Writing answers: content negotiation (JSON, Table, aggregated discovery) and Status errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notFoundMessage, StatusError, toStatus } from '../../k8s/status.ts';
import { apiVersionOf, type ResourceDef } from '../resources.ts';
import type { Entry, Obj } from '../store.ts';
import { toTable } from '../table/index.ts';

/** kube-apiserver's answer for a path it does not serve. */
export const notFound = () => notFoundMessage('the server could not find the requested resource');

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendStatus(res: ServerResponse, err: unknown): void {
  const s = toStatus(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, s.code, s);
}

export function sendAggregated(res: ServerResponse, doc: Obj, v: string): void {
  sendJson(res, 200, doc, `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
}

export const acceptOf = (req: IncomingMessage) => String(req.headers.accept ?? '');

/** The aggregated discovery version (v2 or v2beta1) the Accept header asks for, if any. */
export function wantsAggregated(accept: string): string | undefined {
  for (const part of accept.split(',')) {
    if (!part.includes('as=APIGroupDiscoveryList') || !part.includes('g=apidiscovery.k8s.io')) continue;
    const v = /;\s*v=(v2beta1|v2)\b/.exec(part)?.[1];
    if (v) return v;
  }
  return undefined;
}

export function wantsTable(accept: string): boolean {
  return accept.split(',').some((p) => p.includes('as=Table') && p.includes('g=meta.k8s.io'));
}

/** Refuses (406) an Accept header that allows neither JSON (or YAML) nor a Table. */
export function checkAcceptable(accept: string): void {
  if (!acceptsJson(accept) && !wantsTable(accept))
    throw new StatusError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: application/json, application/yaml`,
    );
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

/** Presents a stored object in the version the request addressed (custom resources share storage). */
export function present(d: ResourceDef, e: Entry): { obj: Obj; json: string } {
  const av = apiVersionOf(d);
  if (e.obj.apiVersion === av && e.obj.kind === d.kind) return { obj: e.obj, json: e.json };
  const obj = { ...e.obj, apiVersion: av, kind: d.kind };
  return { obj, json: JSON.stringify(obj) };
}

/** One object, as JSON or as a Table when asked for. */
export function sendObject(
  res: ServerResponse,
  accept: string,
  query: URLSearchParams,
  code: number,
  d: ResourceDef,
  e: Entry,
): void {
  if (wantsTable(accept)) {
    const includeObject = query.get('includeObject') ?? undefined;
    sendJson(res, code, toTable(d, [present(d, e).obj], { includeObject }));
    return;
  }
  sendJson(res, code, present(d, e).json);
}

/** A `<Kind>List` written from the stored JSON of its items (no re-serialisation). */
export function sendList(res: ServerResponse, d: ResourceDef, listMeta: Obj, entries: Entry[]): void {
  const head = `{"kind":"${d.kind}List","apiVersion":"${apiVersionOf(d)}","metadata":${JSON.stringify(listMeta)},"items":[`;
  sendJson(res, 200, `${head}${entries.map((e) => present(d, e).json).join(',')}]}`);
}
