// Discovery documents by route: /api, /apis (plain or aggregated), /apis/{group}, /api/v1 and /apis/{group}/{version}.
import type { ServerResponse } from 'node:http';
import type { Registry } from '../registry.ts';
import { notFound, sendAggregated, sendJson, wantsAggregated } from './respond.ts';

export function serveDiscoveryRoot(
  res: ServerResponse,
  registry: Registry,
  core: boolean,
  accept: string,
): void {
  const agg = wantsAggregated(accept);
  if (agg) sendAggregated(res, registry.aggregated(core, `apidiscovery.k8s.io/${agg}`), agg);
  else sendJson(res, 200, core ? registry.apiVersions() : registry.apiGroupList());
}

export function serveGroup(res: ServerResponse, registry: Registry, group: string): void {
  const g = registry.groups().find((x) => x.name === group && x.name !== '');
  if (!g) throw notFound();
  sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...registry.apiGroup(g.name, g.versions) });
}

export function serveResourceList(
  res: ServerResponse,
  registry: Registry,
  group: string,
  version: string,
): void {
  if (!registry.hasGroupVersion(group, version)) throw notFound();
  sendJson(res, 200, registry.apiResourceList(group, version));
}
