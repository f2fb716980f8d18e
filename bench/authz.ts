// Authorization time per request (issue 12's performance line): 500 workspaces, 5,000 namespaces (10 a workspace, all
// labelled) and 10,000 bindings (WorkspaceRoleBindings, group ones included, RoleBindings and a few global ones) in
// in-memory listers indexed as the informer's are; p50/p99 of `authorize` for a typical user (4 bindings of their
// own, one group), over a mix of requests: pods in their namespace (allowed by a RoleBinding), in their workspace's
// other namespace (allowed by the workspace role), in another workspace's namespace (refused: every applicable
// binding visited), a get of their workspace (membership) and a global list (refused). Then the same with 10x the
// bindings (and users), the user's own unchanged: the time must not grow with the total. Each is measured twice: the
// server's authorizer (decisions cached until RBAC data changes: the repeated request's cost) and the walk over
// bindings itself (RbacAuthorizer: the cost of a miss).
// Prints one JSON document and a one-line summary. BENCH_CALLS (20,000 per run).
import type { KubeObject } from '../src/apiserver/cluster/index.ts';
import { parseRequestInfo } from '../src/apiserver/filters/requestinfo.ts';
import {
  type AuthorizationAttributes,
  attributesOf,
  newAuthorizer,
} from '../src/apiserver/iam/authorizer.ts';
import { RbacAuthorizer } from '../src/apiserver/iam/rbac.ts';
import { RuleResolver } from '../src/apiserver/iam/rbac-resolver.ts';
import { BUILTIN_GLOBAL_ROLES, globalRoleObject } from '../src/apiserver/iam/roles.ts';
import { inWorkspace, MemoryRbacListers } from '../test/apiserver/iam/memory-listers.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const WORKSPACES = 500;
const NAMESPACES_PER_WORKSPACE = 10;
const ALL = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
const user = (i: number) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` });
const ns = (w: number, n: number) => `ws-${w}-ns-${n}`;

/**
 * `bindings` bindings over the fixed workspaces and namespaces: per workspace one group binding and
 * (bindings/5 - 500) user WorkspaceRoleBindings spread over users, the other 4/5 RoleBindings spread over
 * namespaces and users; users = bindings / 4, so every user holds about 4.
 */
function listersWith(bindings: number): MemoryRbacListers {
  const l = new MemoryRbacListers();
  const users = bindings / 4;
  for (const role of BUILTIN_GLOBAL_ROLES) l.addRole('GlobalRole', globalRoleObject(role) as KubeObject);
  l.addRole('ClusterRole', {
    metadata: { name: 'edit' },
    rules: [{ apiGroups: ['', 'apps'], resources: ['pods', 'deployments'], verbs: ['*'] }],
  });
  for (let w = 0; w < WORKSPACES; w++) {
    const labels = inWorkspace(`ws-${w}`);
    l.addRole('WorkspaceRole', {
      metadata: { name: `ws-${w}-viewer`, labels },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    l.addRole('WorkspaceRole', { metadata: { name: `ws-${w}-admin`, labels }, rules: ALL });
    for (let n = 0; n < NAMESPACES_PER_WORKSPACE; n++) l.addNamespace(ns(w, n), `ws-${w}`);
    l.addBinding('WorkspaceRoleBinding', {
      metadata: { name: `ws-${w}-viewers`, labels },
      roleRef: { kind: 'WorkspaceRole', name: `ws-${w}-viewer` },
      subjects: [{ kind: 'Group', name: `ws-${w}-viewers` }],
    });
  }
  let made = WORKSPACES;
  for (let i = 0; made < bindings / 5; i++, made++) {
    const w = i % WORKSPACES;
    l.addBinding('WorkspaceRoleBinding', {
      metadata: { name: `ws-${w}-b${i}`, labels: inWorkspace(`ws-${w}`) },
      roleRef: { kind: 'WorkspaceRole', name: `ws-${w}-admin` },
      subjects: [user(i % users)],
    });
  }
  for (let i = 0; made < bindings - 10; i++, made++) {
    const namespace = ns(i % WORKSPACES, Math.floor(i / WORKSPACES) % NAMESPACES_PER_WORKSPACE);
    l.addBinding('RoleBinding', {
      metadata: { name: `rb-${i}`, namespace },
      roleRef: { kind: 'ClusterRole', name: 'edit' },
      subjects: [user((i * 7) % users)],
    });
  }
  for (let i = 0; i < 10; i++) {
    l.addBinding('GlobalRoleBinding', {
      metadata: { name: `grb-${i}` },
      roleRef: { kind: 'GlobalRole', name: 'platform-regular' },
      subjects: [user(i)],
    });
  }
  return l;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(bindings: number, cached: boolean) {
  const resolver = new RuleResolver(listersWith(bindings));
  const authorizer = cached ? newAuthorizer('RBAC', resolver) : new RbacAuthorizer(resolver);
  const who = { name: 'user-77', groups: ['system:authenticated', 'ws-3-viewers'] };
  const [workspace] = [...(await resolver.workspacesOf({ ...who, groups: [] }))];
  const [namespace] = [...(await resolver.namespacesOf(who))];
  const other = ns((Number(workspace.slice(3)) + 250) % WORKSPACES, 0);
  const mine = ns(Number(workspace.slice(3)), 9);
  const requests: [string, AuthorizationAttributes, boolean][] = [
    [
      `pods in ${namespace}`,
      attributesOf(parseRequestInfo('GET', `/api/v1/namespaces/${namespace}/pods`)),
      true,
    ],
    [`pods in ${mine}`, attributesOf(parseRequestInfo('DELETE', `/api/v1/namespaces/${mine}/pods/p`)), true],
    [`pods in ${other}`, attributesOf(parseRequestInfo('GET', `/api/v1/namespaces/${other}/pods`)), false],
    [
      `get workspace ${workspace}`,
      attributesOf(parseRequestInfo('GET', `/kapis/tenant.kubesphere.io/v1alpha2/workspaces/${workspace}`)),
      true,
    ],
    ['list users', attributesOf(parseRequestInfo('GET', '/kapis/iam.kubesphere.io/v1alpha2/users')), false],
  ];
  for (const [what, attrs, expected] of requests) {
    const d = await authorizer.authorize(who, attrs);
    if (d.allowed !== expected) throw new Error(`${what}: allowed ${d.allowed}, expected ${expected}`);
  }
  const run = async () => {
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const [, attrs] = requests[i % requests.length];
      const t0 = process.hrtime.bigint();
      await authorizer.authorize(who, attrs);
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    return times.sort((a, b) => a - b);
  };
  await run(); // warm-up
  const times = await run();
  return {
    bindings,
    cached,
    workspaces: WORKSPACES,
    namespaces: WORKSPACES * NAMESPACES_PER_WORKSPACE,
    calls: CALLS,
    p50us: Math.round(percentile(times, 50) * 10) / 10,
    p99us: Math.round(percentile(times, 99) * 10) / 10,
  };
}

async function main() {
  const runs = [
    await measure(10_000, true),
    await measure(100_000, true),
    await measure(10_000, false),
    await measure(100_000, false),
  ];
  console.log(JSON.stringify({ requests: 'authorize(), typical user, 5-request mix', runs }, null, 2));
  const line = (r: (typeof runs)[number]) => `${r.p50us}/${r.p99us} µs with ${r.bindings} bindings`;
  console.log(
    `authorize p50/p99, cached: ${line(runs[0])}, ${line(runs[1])}; ` +
      `the walk (a miss): ${line(runs[2])}, ${line(runs[3])}`,
  );
}

await main();
