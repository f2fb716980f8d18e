// RbacListers over plain objects held in memory: RBAC decisions tested without a cluster, a cache or polling.
import type { KubeObject } from '../../src/apiserver/cluster/index.ts';
import {
  type Binding,
  type BindingKind,
  parseBinding,
  parseRole,
  type RbacListers,
  type Role,
  type RoleKind,
  subjectKeysOfBinding,
} from '../../src/apiserver/iam/rbac-listers.ts';

export class MemoryRbacListers implements RbacListers {
  private readonly roles = new Map<string, Role>();
  private readonly bindings: { kind: BindingKind; binding: Binding; keys: string[] }[] = [];

  addRole(kind: RoleKind, obj: KubeObject): this {
    const role = parseRole(obj);
    this.roles.set(`${kind}/${kind === 'Role' ? role.namespace : ''}/${role.name}`, role);
    return this;
  }

  addBinding(kind: BindingKind, obj: KubeObject): this {
    this.bindings.push({ kind, binding: parseBinding(obj), keys: subjectKeysOfBinding(obj) });
    return this;
  }

  role(kind: RoleKind, namespace: string, name: string): Role | undefined {
    return this.roles.get(`${kind}/${kind === 'Role' ? namespace : ''}/${name}`);
  }

  *bindingsWithSubject(kind: BindingKind, subjectKeys: readonly string[]): Generator<Binding> {
    for (const b of this.bindings) {
      if (b.kind === kind && b.keys.some((k) => subjectKeys.includes(k))) yield b.binding;
    }
  }

  hasSynced(): boolean {
    return true;
  }

  async waitForSync(): Promise<boolean> {
    return true;
  }
}
