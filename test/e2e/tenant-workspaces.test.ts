// tenant.kubesphere.io end to end (dev cluster + kapiserver, real tokens, the controllers running): the platform
// admin makes a workspace with a manager created through the iam API, the manager makes a project in it (the creator
// is the caller whatever the body says), members see their workspaces (a manager with no global role too) and
// outsiders see nothing, bad input is a 4xx Status naming the problem, and deleting a workspace deletes its
// namespaces unless orphaned.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../helpers/kubectl.ts';
import { login } from '../helpers/oauth.ts';

const T2 = '/kapis/tenant.kubesphere.io/v1alpha2';
const T3 = '/kapis/tenant.kubesphere.io/v1alpha3';
const IAM = '/kapis/iam.kubesphere.io/v1alpha2';
const WS_LABEL = 'kubesphere.io/workspace';
const CREATOR = 'kubesphere.io/creator';
let s: KapisStack;
const tok: Record<string, string> = {};

const ok = (r: { status: number; body: Json }, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
const names = (body: Json): string[] => body.items.map((o: Json) => o.metadata.name).sort();
const statusOf = (r: { status: number; body: Json }, code: number, pattern: RegExp) => {
  assert.equal(r.status, code, JSON.stringify(r.body));
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.code, code);
  assert.match(r.body.message, pattern);
};

async function userViaIam(name: string): Promise<void> {
  const password = `${name}-Passw0rd`;
  ok(
    await s.call('POST', `${IAM}/users`, {
      metadata: { name },
      spec: { email: `${name}@example.com`, password },
    }),
  );
  tok[name] = await until(
    () =>
      login(s, name, password).then(
        (t) => t.access_token,
        () => undefined,
      ),
    `login as ${name}`,
  );
}

async function workspace(name: string, manager?: string) {
  return s.call('POST', `${T2}/workspaces`, {
    metadata: { name },
    spec: { template: { spec: manager ? { manager } : {} } },
  });
}

/** Waits until the namespace controller made the Workspace its owner (so a cascade would reach it). */
const owned = (ns: string, ws: string) =>
  until(async () => {
    const r = await s.kube('GET', `/api/v1/namespaces/${ns}`);
    return r.body.metadata?.ownerReferences?.some((o: Json) => o.kind === 'Workspace' && o.name === ws);
  }, `${ns} owned by workspace ${ws}`);

before(async () => {
  s = await startKapisStack();
  tok.admin = s.token;
  for (const u of ['mia', 'otto', 'val']) await userViaIam(u);
  // val may read workspaces by name and list templates, but not list every workspace: what she sees is membership.
  ok(
    await s.kube('POST', '/apis/iam.kubesphere.io/v1alpha2/globalroles', {
      metadata: { name: 'workspace-reader' },
      rules: [
        {
          apiGroups: ['tenant.kubesphere.io'],
          resources: ['workspaces', 'workspacetemplates'],
          verbs: ['get'],
        },
        { apiGroups: ['tenant.kubesphere.io'], resources: ['workspacetemplates'], verbs: ['list'] },
      ],
    }),
    201,
  );
  ok(
    await s.kube('POST', '/apis/iam.kubesphere.io/v1alpha2/globalrolebindings', {
      metadata: { name: 'val-workspace-reader' },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'workspace-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'val' }],
    }),
    201,
  );
});

after(async () => {
  await s?.close();
});

test('the console: GET /kapis/version, then the first page of workspace templates holds system-workspace', async () => {
  ok(await s.call('GET', '/kapis/version'));
  const list = await until(async () => {
    const r = await s.call('GET', `${T3}/workspacetemplates?limit=10`);
    return r.status === 200 && names(r.body).includes('system-workspace') ? r.body : undefined;
  }, 'system-workspace listed');
  assert.ok(list.totalItems >= 1);
  assert.equal(typeof list.totalItems, 'number');
});

test('admin creates a workspace managed by mia; mia creates a project in it as its creator', async () => {
  const tpl = ok(await workspace('team-a', 'mia'));
  assert.equal(tpl.kind, 'WorkspaceTemplate');
  assert.equal(tpl.metadata.annotations[CREATOR], 'admin');

  // The manager binding comes from the workspace controller; then mia may create namespaces there.
  const body = {
    metadata: { name: 'proj-a', annotations: { [CREATOR]: 'otto' }, labels: { [WS_LABEL]: 'team-a' } },
  };
  const created = await until(async () => {
    const r = await s.call('POST', `${T2}/workspaces/team-a/namespaces`, body, tok.mia);
    return r.status === 200 ? r.body : undefined;
  }, 'mia may create namespaces in team-a');
  assert.equal(created.metadata.annotations[CREATOR], 'mia', 'the creator is the caller, not the body');
  assert.equal(created.metadata.labels[WS_LABEL], 'team-a');
  await owned('proj-a', 'team-a');

  const mine = await until(async () => {
    const r = await s.call('GET', `${T2}/workspaces/team-a/namespaces`, undefined, tok.mia);
    return r.status === 200 && r.body.totalItems === 1 ? r.body : undefined;
  }, 'mia lists the namespaces of team-a');
  assert.deepEqual(names(mine), ['proj-a']);
  ok(await s.call('GET', `${T2}/workspaces/team-a/namespaces/proj-a`, undefined, tok.mia));
  // The creator's admin binding made by the namespace controller.
  await until(
    async () =>
      (await s.kube('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/proj-a/rolebindings/mia-admin'))
        .status === 200,
    'mia-admin binding',
  );
  // Through the workspace of another path the namespace does not exist.
  ok(await workspace('team-z'));
  statusOf(
    await s.call('GET', `${T2}/workspaces/team-z/namespaces/proj-a`),
    404,
    /namespaces "proj-a" not found/,
  );
});

test('a workspace manager without any global role lists and gets their workspace, not another', async () => {
  const grbs = ok(await s.kube('GET', '/apis/iam.kubesphere.io/v1alpha2/globalrolebindings'));
  assert.ok(
    !JSON.stringify(grbs.items.map((b: Json) => b.subjects)).includes('"mia"'),
    'mia holds no global role',
  );
  assert.deepEqual(names(ok(await s.call('GET', `${T2}/workspaces`, undefined, tok.mia))), ['team-a']);
  assert.deepEqual(names(ok(await s.call('GET', `${T3}/workspacetemplates`, undefined, tok.mia))), [
    'team-a',
  ]);
  const workspaces = await until(async () => {
    const r = await s.call('GET', `${T3}/workspaces`, undefined, tok.mia);
    return r.status === 200 && r.body.totalItems === 1 ? r.body : undefined;
  }, 'mia lists her Workspace');
  assert.deepEqual(names(workspaces), ['team-a']);
  for (const path of [
    `${T2}/workspaces/team-a`,
    `${T3}/workspacetemplates/team-a`,
    `${T3}/workspaces/team-a`,
  ]) {
    assert.equal(ok(await s.call('GET', path, undefined, tok.mia)).metadata.name, 'team-a', path);
  }
  // Another workspace (team-z exists), and the same objects through /apis: refused.
  for (const path of [
    `${T2}/workspaces/team-z`,
    `${T3}/workspacetemplates/team-z`,
    `${T3}/workspaces/system-workspace`,
    '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/team-a',
    '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates',
  ]) {
    statusOf(
      await s.call('GET', path, undefined, tok.mia),
      403,
      /User "mia" cannot get|User "mia" cannot list/,
    );
  }
  // Reads only: no update or delete of the workspace she manages through membership alone.
  statusOf(await s.call('DELETE', `${T2}/workspaces/team-a`, undefined, tok.mia), 403, /cannot delete/);
});

test('outsiders see neither the workspace nor its namespaces; members see only theirs', async () => {
  ok(await workspace('team-v'));
  for (const path of [
    `${T3}/workspacetemplates`,
    `${T2}/workspaces`,
    `${T2}/workspaces/team-a`,
    `${T2}/workspaces/team-a/namespaces`,
    `${T2}/workspaces/team-a/namespaces/proj-a`,
    `${T2}/namespaces`,
  ]) {
    const r = await s.call('GET', path, undefined, tok.otto);
    assert.ok(r.status === 403 || r.status === 404 || r.status === 200, `${path}: ${r.status}`);
    assert.ok(
      !JSON.stringify(r.body.items ?? r.body.metadata ?? '').includes('team-a'),
      `${path} reveals team-a`,
    );
    assert.ok(!JSON.stringify(r.body.items ?? '').includes('proj-a'), `${path} reveals proj-a`);
  }
  // val may read workspaces, but only those she is a member of.
  statusOf(await s.call('GET', `${T2}/workspaces/team-v`, undefined, tok.val), 404, /"team-v" not found/);
  assert.deepEqual(names(ok(await s.call('GET', `${T3}/workspacetemplates`, undefined, tok.val))), []);
  await until(
    async () =>
      (await s.kube('GET', '/apis/iam.kubesphere.io/v1alpha2/workspaceroles/team-v-viewer')).status === 200,
    'team-v roles',
  );
  ok(
    await s.kube('POST', '/apis/iam.kubesphere.io/v1alpha2/workspacerolebindings', {
      metadata: { name: 'val-team-v-viewer', labels: { [WS_LABEL]: 'team-v' } },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'WorkspaceRole', name: 'team-v-viewer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'val' }],
    }),
    201,
  );
  const seen = await until(async () => {
    const r = await s.call('GET', `${T3}/workspacetemplates`, undefined, tok.val);
    return r.status === 200 && r.body.totalItems === 1 ? r.body : undefined;
  }, 'val sees team-v');
  assert.deepEqual(names(seen), ['team-v']);
  ok(await s.call('GET', `${T2}/workspaces/team-v`, undefined, tok.val));
  statusOf(await s.call('GET', `${T2}/workspaces/team-a`, undefined, tok.val), 404, /"team-a" not found/);
  // The admin sees every workspace.
  const all = names(ok(await s.call('GET', `${T2}/workspaces?limit=100`)));
  for (const w of ['system-workspace', 'team-a', 'team-v']) assert.ok(all.includes(w), w);
});

test('no credentials, or a forged token: every new tenant and workspace IAM route is a 401 Status, nothing written', async () => {
  const routes: [string, string, unknown?][] = [
    ['GET', `${T2}/workspaces`],
    ['POST', `${T2}/workspaces`, { metadata: { name: 'anon-ws' }, spec: { template: { spec: {} } } }],
    ['GET', `${T2}/workspaces/system-workspace`],
    ['DELETE', `${T2}/workspaces/system-workspace`],
    ['GET', `${T3}/workspacetemplates`],
    ['GET', `${T3}/workspaces`],
    ['POST', `${T2}/workspaces/system-workspace/namespaces`, { metadata: { name: 'anon-ns' } }],
    ['GET', `${T2}/namespaces`],
    ['GET', `${IAM}/workspaces/system-workspace/workspacemembers`],
    ['POST', `${IAM}/workspaces/system-workspace/workspacemembers`, [{ username: 'x', roleRef: 'r' }]],
    ['POST', `${IAM}/workspaces/system-workspace/groups`, { metadata: { generateName: 'anon-' } }],
    ['POST', `${IAM}/workspaces/system-workspace/groupbindings`, [{ userName: 'x', groupName: 'g' }]],
    ['POST', `${IAM}/namespaces/default/rolebindings`, [{ roleRef: { name: 'admin' }, subjects: [] }]],
  ];
  const forged = `${tok.mia ?? 'eyJhbGciOiJIUzI1NiJ9.e30'}x`;
  for (const [method, path, body] of routes) {
    for (const authorization of [undefined, `Bearer ${forged}`]) {
      const res = await fetch(`${s.url}${path}`, {
        method,
        headers: {
          ...(authorization ? { authorization } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const status = (await res.json()) as Json;
      assert.equal(res.status, 401, `${method} ${path} (${authorization ? 'forged' : 'none'})`);
      assert.equal(status.kind, 'Status');
      assert.equal(status.code, 401);
    }
  }
  assert.equal(
    (await s.kube('GET', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/anon-ws')).status,
    404,
  );
  assert.equal((await s.kube('GET', '/api/v1/namespaces/anon-ns')).status, 404);
});

test('bad input: a 4xx Status naming the problem', async () => {
  statusOf(await workspace('Team_A'), 422, /metadata\.name.*RFC 1123 label/);
  statusOf(
    await s.call('POST', `${T2}/workspaces/missing/namespaces`, { metadata: { name: 'proj-m' } }),
    404,
    /workspacetemplates\.tenant\.kubesphere\.io "missing" not found/,
  );
  statusOf(
    await s.call('POST', `${T2}/workspaces/team-a/namespaces`, {
      metadata: { name: 'proj-x', labels: { [WS_LABEL]: 'team-v' } },
    }),
    422,
    /kubesphere\.io\/workspace.*must be "team-a"/,
  );
  statusOf(
    await s.call('POST', `${T2}/workspaces/team-a/namespaces`, { metadata: { name: 'Proj' } }),
    422,
    /RFC 1123/,
  );
  statusOf(await workspace('team-a'), 409, /already exists/);
  statusOf(
    await s.call('POST', `${T2}/workspaces`, {
      metadata: { name: 'team-c' },
      spec: { placement: { clusters: [{ name: 'host' }] } },
    }),
    404,
    /clusters\.cluster\.kubesphere\.io "host" not found/,
  );
  statusOf(await s.call('GET', `${T2}/workspaces/missing`), 404, /"missing" not found/);
  statusOf(await s.call('GET', `${T2}/events`), 404, /events backend/);
  assert.deepEqual(ok(await s.call('GET', `${T2}/clusters`)), { items: [], totalItems: 0 });
});

test('patch a workspace with a JSON Patch or a merge patch', async () => {
  const jp = await fetch(`${s.url}${T2}/workspaces/team-z`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { tier: 'gold' } }]),
  });
  assert.equal(jp.status, 200);
  assert.equal(((await jp.json()) as Json).metadata.labels.tier, 'gold');
  const mp = await fetch(`${s.url}${T2}/workspaces/team-z`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { labels: { tier: 'silver' } } }),
  });
  assert.equal(mp.status, 200);
  assert.equal(((await mp.json()) as Json).metadata.labels.tier, 'silver');
  // A patch naming a placement cluster is checked like a create (single cluster: 404), and nothing is stored.
  for (const [type, body] of [
    [
      'application/json-patch+json',
      [{ op: 'add', path: '/spec/placement/clusters', value: [{ name: 'host' }] }],
    ],
    ['application/merge-patch+json', { spec: { placement: { clusters: [{ name: 'host' }] } } }],
  ] as const) {
    const placed = await fetch(`${s.url}${T2}/workspaces/team-z`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': type },
      body: JSON.stringify(body),
    });
    statusOf(
      { status: placed.status, body: await placed.json() },
      404,
      /clusters\.cluster\.kubesphere\.io "host" not found/,
    );
  }
  const stored = ok(await s.kube('GET', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/team-z'));
  assert.equal(stored.spec.placement.clusters, undefined);
  assert.equal(stored.metadata.labels.tier, 'silver');
});

test('delete: system-workspace never; Orphan keeps the namespaces; otherwise they go', async () => {
  statusOf(await s.call('DELETE', `${T2}/workspaces/system-workspace`), 403, /built in/);
  statusOf(await s.call('DELETE', `${T3}/workspacetemplates/system-workspace`), 403, /built in/);

  ok(await workspace('team-o'));
  ok(await s.call('POST', `${T2}/workspaces/team-o/namespaces`, { metadata: { name: 'proj-o' } }));
  await owned('proj-o', 'team-o');
  ok(await s.call('DELETE', `${T2}/workspaces/team-o`, { propagationPolicy: 'Orphan' }));
  await until(
    async () => (await s.kube('GET', '/apis/tenant.kubesphere.io/v1alpha1/workspaces/team-o')).status === 404,
    'workspace team-o gone',
  );
  const kept = ok(await s.kube('GET', '/api/v1/namespaces/proj-o'));
  assert.equal(kept.metadata.deletionTimestamp, undefined, 'proj-o kept');

  ok(await s.call('DELETE', `${T2}/workspaces/team-a`));
  await until(
    async () => (await s.kube('GET', '/api/v1/namespaces/proj-a')).status === 404,
    'proj-a deleted with team-a',
  );
});

test('kubectl through kapiserver cannot delete system-workspace, nor workspaces as a collection', {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  const kubeconfig = writeKubeconfig(join(mkdtempSync(join(tmpdir(), 'tenant-')), 'admin.kubeconfig'), {
    server: s.secureUrl,
    caPem: s.caPem,
    token: s.token,
  });
  const kubectl = (...args: string[]) => runKubectl(['--kubeconfig', kubeconfig, ...args]);
  for (const [kind, path] of [
    ['workspacetemplates.tenant.kubesphere.io', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates'],
    ['workspaces.tenant.kubesphere.io', '/apis/tenant.kubesphere.io/v1alpha1/workspaces'],
  ]) {
    const one = await kubectl('delete', kind, 'system-workspace');
    assert.notEqual(one.status, 0);
    assert.match(one.stderr, /"system-workspace" is built in/);
    // --all deletes by name, one by one: system-workspace stays.
    const all = await kubectl('delete', kind, '--all');
    assert.match(all.stderr, /"system-workspace" is built in/);
    const collection = await kubectl('delete', '--raw', path);
    assert.notEqual(collection.status, 0);
    assert.match(collection.stderr, /MethodNotAllowed|cannot be deleted as a collection|405/);
  }
  assert.equal(
    (await s.kube('GET', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/system-workspace')).status,
    200,
  );
  assert.equal(
    (await s.kube('GET', '/apis/tenant.kubesphere.io/v1alpha1/workspaces/system-workspace')).status,
    200,
  );
  assert.equal(
    (await s.kube('GET', '/api/v1/namespaces/kube-system')).body.metadata.deletionTimestamp,
    undefined,
  );
});
