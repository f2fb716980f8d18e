// Query parameters and options of resource requests, read and checked the way kube-apiserver does.
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { DeleteOptions, ListQuery, WriteOptions } from '../rest.ts';

export const boolParam = (v: string | null) => v === 'true' || v === '1';

export function intParam(v: string | null, name: string): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid ${name}: "${v}" is not an integer`);
  return Number(v);
}

export function watchRv(v: string | null): string | undefined {
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badRequest(`invalid resource version: "${v}"`);
  return v;
}

export function listQuery(q: URLSearchParams): ListQuery {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q.get('limit'), 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  };
}

export function writeOptions(req: IncomingMessage, q: URLSearchParams): WriteOptions {
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
    warnings: [],
  };
}

/** DeleteOptions from the body, falling back to query parameters (as kubectl may send either). */
export function deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const b = isObj(body) ? body : {};
  const pre = isObj(b.preconditions) ? b.preconditions : {};
  let propagation = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  if (b.orphanDependents === true || q.get('orphanDependents') === 'true') propagation = 'Orphan';
  if (propagation && !['Orphan', 'Background', 'Foreground'].includes(propagation))
    throw badRequest(
      `propagationPolicy: Unsupported value: "${propagation}": supported values: "Orphan", "Background", "Foreground"`,
    );
  const dryRun = Array.isArray(b.dryRun) ? b.dryRun.length > 0 : q.getAll('dryRun').length > 0;
  const grace = b.gracePeriodSeconds ?? q.get('gracePeriodSeconds') ?? undefined;
  if (grace !== undefined && grace !== null && !/^-?\d+$/.test(String(grace)))
    throw badRequest(`gracePeriodSeconds: Invalid value: "${String(grace)}": must be an integer`);
  return {
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Math.max(0, Number(grace)),
    propagationPolicy: propagation,
    preconditions: {
      uid: typeof pre.uid === 'string' ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
    },
    dryRun,
  };
}
