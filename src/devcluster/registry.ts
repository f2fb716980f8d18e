// The set of resource types currently served (built-ins plus the versions of established CRDs) and the
// discovery documents built from it.
import {
  BUILTIN_GROUP_ORDER,
  BUILTIN_RESOURCES,
  type ResourceDef,
  subresourceKind,
  subresourceVerbs,
} from './resources.ts';
import type { Obj } from './store.ts';

export class Registry {
  private defs: ResourceDef[] = [...BUILTIN_RESOURCES];

  all(): ResourceDef[] {
    return this.defs;
  }

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.defs.find((d) => d.group === group && d.version === version && d.resource === resource);
  }

  /** Any served version of a group/resource (the first one), e.g. to resolve CR storage. */
  anyVersion(group: string, resource: string): ResourceDef | undefined {
    return this.defs.find((d) => d.group === group && d.resource === resource);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.defs.some((d) => d.group === group && d.version === version);
  }

  /** Groups in discovery order, each with its versions in preference order. */
  groups(): { name: string; versions: string[] }[] {
    const names = new Set<string>();
    for (const g of BUILTIN_GROUP_ORDER) names.add(g);
    const crdGroups = [...new Set(this.defs.filter((d) => d.crd).map((d) => d.group))].sort();
    for (const g of crdGroups) names.add(g);
    const out: { name: string; versions: string[] }[] = [];
    for (const name of names) {
      const served = [...new Set(this.defs.filter((d) => d.group === name).map((d) => d.version))];
      if (served.length === 0) continue;
      out.push({ name, versions: sortVersions(served) });
    }
    return out;
  }

  /** Replaces the served versions of one CRD (empty list removes it). */
  setCrd(crdName: string, defs: ResourceDef[]): void {
    this.defs = this.defs.filter((d) => d.crd?.crdName !== crdName).concat(defs);
  }

  // --- discovery documents ---

  apiVersions(): Obj {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
    };
  }

  apiGroup(name: string, versions: string[]): Obj {
    const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    return { name, versions: vs, preferredVersion: vs[0] };
  }

  apiGroupList(): Obj {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.groups()
        .filter((g) => g.name !== '')
        .map((g) => this.apiGroup(g.name, g.versions)),
    };
  }

  apiResourceList(group: string, version: string): Obj {
    const resources: Obj[] = [];
    for (const d of this.defs.filter((x) => x.group === group && x.version === version)) {
      resources.push(resourceEntry(d));
      for (const sub of d.subresources) {
        const k = subresourceKind(d, sub);
        const e: Obj = {
          name: `${d.resource}/${sub}`,
          singularName: '',
          namespaced: d.namespaced,
          kind: k.kind,
          verbs: subresourceVerbs(sub),
        };
        if (k.group) e.group = k.group;
        if (k.version) e.version = k.version;
        resources.push(e);
      }
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    };
  }

  /** Aggregated discovery (apidiscovery.k8s.io v2 or v2beta1) for `/api` (core) or `/apis` (all groups). */
  aggregated(core: boolean, apiVersion: string): Obj {
    const items = this.groups()
      .filter((g) => (core ? g.name === '' : g.name !== ''))
      .map((g) => ({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({
          version: v,
          freshness: 'Current',
          resources: this.defs
            .filter((d) => d.group === g.name && d.version === v)
            .map((d) => {
              const r: Obj = {
                resource: d.resource,
                responseKind: { group: d.group, version: d.version, kind: d.kind },
                scope: d.namespaced ? 'Namespaced' : 'Cluster',
                singularResource: d.singular,
                verbs: d.verbs,
              };
              if (d.shortNames) r.shortNames = d.shortNames;
              if (d.categories) r.categories = d.categories;
              if (d.subresources.length > 0) {
                r.subresources = d.subresources.map((sub) => {
                  const k = subresourceKind(d, sub);
                  return {
                    subresource: sub,
                    responseKind: {
                      group: k.group ?? d.group,
                      version: k.version ?? d.version,
                      kind: k.kind,
                    },
                    verbs: subresourceVerbs(sub),
                  };
                });
              }
              return r;
            }),
        })),
      }));
    return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
  }
}

function resourceEntry(d: ResourceDef): Obj {
  const e: Obj = {
    name: d.resource,
    singularName: d.singular,
    namespaced: d.namespaced,
    kind: d.kind,
    verbs: d.verbs,
  };
  if (d.shortNames) e.shortNames = d.shortNames;
  if (d.categories) e.categories = d.categories;
  if (!d.virtual)
    e.storageVersionHash = Buffer.from(`${d.group}/${d.version}/${d.kind}`).toString('base64').slice(0, 11);
  return e;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2 > v1beta1 > v1alpha1). */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
    return a < b ? -1 : 1;
  });
}
