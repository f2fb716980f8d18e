// RbacListers over plain objects held in memory: RBAC decisions tested (and benchmarked) without a cluster, a cache or
// polling. Bindings are indexed by the same keys as the informer's index, so a lookup never scans them all.
import type { KubeObject } from '../../../src/apiserver/cluster/index.ts';
import { WORKSPACE_LABEL } from '../../../src/apiserver/iam/labels.ts';
import {
  type Binding,
  type BindingKind,
  lookupKeys,
  parseBinding,
  parseRole,
  type RbacListers,
  type Role,
  type RoleKind,
  subjectKeysOfBinding,
} from '../../../src/apiserver/iam/rbac-listers.ts';

export class MemoryRbacListers implements RbacListers {
  private readonly roles = new Map<string, Role>();
  /** `kind`, then index key -> bindings. */
  private readonly bindings = new Map<BindingKind, Map<string, Binding[]>>();
  private readonly namespaces = new Map<string, string>();
  private changes = 0;

  addRole(kind: RoleKind, obj: KubeObject): this {
    this.changes++;
    const role = parseRole(obj);
    this.roles.set(`${kind}/${kind === 'Role' ? role.namespace : ''}/${role.name}`, role);
    return this;
  }

  addBinding(kind: BindingKind, obj: KubeObject): this {
    this.changes++;
    const index = this.bindings.get(kind) ?? new Map<string, Binding[]>();
    this.bindings.set(kind, index);
    const binding = parseBinding(obj);
    for (const key of new Set(subjectKeysOfBinding(obj))) {
      const list = index.get(key);
      if (list) list.push(binding);
      else index.set(key, [binding]);
    }
    return this;
  }

  /** A namespace and its workspace label ('' for none). */
  addNamespace(name: string, workspace = ''): this {
    this.changes++;
    this.namespaces.set(name, workspace);
    return this;
  }

  role(kind: RoleKind, namespace: string, name: string): Role | undefined {
    return this.roles.get(`${kind}/${kind === 'Role' ? namespace : ''}/${name}`);
  }

  *bindingsWithSubject(
    kind: BindingKind,
    subjectKeys: readonly string[],
    place?: string,
  ): Generator<Binding> {
    const index = this.bindings.get(kind);
    const seen = new Set<Binding>();
    for (const key of lookupKeys(subjectKeys, place)) {
      for (const b of index?.get(key) ?? []) {
        if (seen.has(b)) continue;
        seen.add(b);
        yield b;
      }
    }
  }

  workspaceOfNamespace(namespace: string): string {
    return this.namespaces.get(namespace) ?? '';
  }

  hasSynced(): boolean {
    return true;
  }

  revision(): number {
    return this.changes;
  }

  async waitForSync(): Promise<boolean> {
    return true;
  }
}

/** The labels of an object in workspace `name`. */
export const inWorkspace = (name: string) => ({ [WORKSPACE_LABEL]: name });
