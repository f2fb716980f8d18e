// kapiserver "in cluster", as deploy/ runs it. The manifests are applied to the dev cluster with the real kubectl and
// the README's steps (TLS Secret from openssl, ClusterConfiguration with a generated client secret); then two
// kapiserver processes are started the way the Deployment's two replicas run: args, env and kubesphere.yaml read back
// from the applied objects, the service-account files staged under KAPISERVER_INCLUSTER_ROOT, and
// KUBERNETES_SERVICE_HOST/PORT pointing at the dev cluster (no kubeconfig anywhere).
// The staged token is the `kubesphere` service account's (`kubectl create token`), so the dev cluster authorizes every
// call kapiserver makes with deploy/'s RBAC. Differences from a real pod, each forced by running without a kubelet:
// paths of mounted volumes are mapped to temp files, ports are ephemeral, Redis is a local redis-server.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { hasKubectl, kubectlRunner } from '../deploy/kubectl.ts';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { freePort } from '../helpers/ports.ts';
import { type KapiserverProcess, ROOT, startKapiserverProcess } from '../helpers/process.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const missing = [!hasKubectl && 'kubectl', !hasOpenssl && 'openssl', !hasRedis && 'redis-server'].filter(
  Boolean,
);
const skip = missing.length > 0 && `needs ${missing.join(', ')} (not installed)`;
if (skip) console.log(`# incluster: skipped: ${skip}`);

const work = mkdtempSync(join(tmpdir(), 'kapiserver-incluster-'));
let dev: TestDevCluster | undefined;
const { run: kubectl, home } = kubectlRunner(() => dev?.kubeconfigPath);
const children: ChildProcess[] = [];
const replicas: KapiserverProcess[] = [];
let clientSecret = '';
let adminPassword = '';
let redisPort = 0;
let tlsCert = '';

type Obj = Record<string, unknown>;
function at(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of path.split('.')) cur = cur && typeof cur === 'object' ? (cur as Obj)[k] : undefined;
  return cur;
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')}\n${r.stderr}`);
  return r.stdout;
}

async function getJson(args: string[]): Promise<Obj> {
  return JSON.parse(await ok([...args, '-o', 'json'])) as Obj;
}

async function startRedis(): Promise<number> {
  const port = await freePort();
  const child = spawn('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  children.push(child);
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG')
      return port;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('redis-server did not start');
}

/** Starts one "pod" of the applied Deployment: its args and env, its mounted files staged under `podDir`. */
async function startReplica(name: string, redisPort: number, saToken: string): Promise<KapiserverProcess> {
  const podDir = join(work, name);
  const deploy = await getJson(['-n', 'kubesphere-system', 'get', 'deployment', 'ks-apiserver']);
  const pod = at(deploy, 'spec.template.spec') as Obj;
  assert.equal(pod.serviceAccountName, 'kubesphere');
  const container = (pod.containers as Obj[])[0];

  // Volumes: the ConfigMap, the TLS Secret, emptyDirs, and the service-account token mount.
  const mounts = new Map<string, string>();
  for (const m of container.volumeMounts as Obj[])
    mounts.set(String(m.mountPath), join(podDir, String(m.name)));
  const configMap = await getJson(['-n', 'kubesphere-system', 'get', 'configmap', 'kubesphere-config']);
  const kubesphereYaml = parse(String((configMap.data as Obj)['kubesphere.yaml'])) as Obj;
  // The Service name redis.kubesphere-system.svc has no DNS here: point at the local redis-server.
  assert.equal(at(kubesphereYaml, 'redis.host'), 'redis.kubesphere-system.svc');
  kubesphereYaml.redis = { ...(kubesphereYaml.redis as Obj), host: '127.0.0.1', port: redisPort };
  const configDir = mounts.get('/etc/kubesphere');
  const tlsDir = mounts.get('/etc/kapiserver/tls');
  assert.ok(configDir && tlsDir);
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'kubesphere.yaml'), stringify(kubesphereYaml));
  const tls = await getJson(['-n', 'kubesphere-system', 'get', 'secret', 'ks-apiserver-tls']);
  mkdirSync(tlsDir, { recursive: true });
  for (const k of ['tls.crt', 'tls.key']) {
    writeFileSync(join(tlsDir, k), Buffer.from(String((tls.data as Obj)[k]), 'base64'));
  }
  const saDir = join(podDir, 'root', 'var', 'run', 'secrets', 'kubernetes.io', 'serviceaccount');
  mkdirSync(saDir, { recursive: true });
  writeFileSync(join(saDir, 'token'), saToken);
  writeFileSync(join(saDir, 'ca.crt'), dev?.caPem ?? '');
  writeFileSync(join(saDir, 'namespace'), 'kubesphere-system');

  const args = (container.args as string[]).map((a) => {
    const [flag, value] = a.split('=', 2);
    if (flag === '--port' || flag === '--secure-port') return `${flag}=0`;
    for (const [mountPath, dir] of mounts) {
      if (value?.startsWith(`${mountPath}/`) || value === mountPath)
        return `${flag}=${dir}${value.slice(mountPath.length)}`;
    }
    return a;
  });
  // Env as the kubelet resolves it: plain values, Secret keys (an optional key that is absent is left out).
  const env: NodeJS.ProcessEnv = {
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(dev?.port),
    KAPISERVER_INCLUSTER_ROOT: join(podDir, 'root'),
    KUBECONFIG_FILE: '',
    KAPISERVER_CONFIG: '',
  };
  for (const e of container.env as Obj[]) {
    if (e.value !== undefined) env[String(e.name)] = String(e.value);
    const ref = at(e, 'valueFrom.secretKeyRef') as Obj | undefined;
    if (ref) {
      const secret = await getJson(['-n', 'kubesphere-system', 'get', 'secret', String(ref.name)]);
      const v = (secret.data as Obj | undefined)?.[String(ref.key)];
      if (v !== undefined) env[String(e.name)] = Buffer.from(String(v), 'base64').toString();
      else
        assert.equal(ref.optional, true, `${e.name}: required Secret key ${ref.name}/${ref.key} is missing`);
    }
  }
  delete env.NODE_OPTIONS; // the pod's heap cap; irrelevant to the test process tree
  const p = await startKapiserverProcess([...args, '--bind-address=127.0.0.1'], env, 120_000);
  replicas.push(p);
  return p;
}

before(async () => {
  if (skip) return;
  dev = await startTestDevCluster();
});

after(async () => {
  for (const p of replicas) p.child.kill('SIGKILL');
  for (const c of children) c.kill('SIGKILL');
  await dev?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

test('the README steps apply: manifests, TLS Secret, ClusterConfiguration with a generated client secret', {
  skip,
  timeout: 180_000,
}, async () => {
  // Serving certificate shared by the replicas (README step 1).
  const crt = join(work, 'ks-apiserver.crt');
  const key = join(work, 'ks-apiserver.key');
  const gen = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '365',
      '-subj',
      '/CN=ks-apiserver.kubesphere-system.svc',
      '-addext',
      'subjectAltName=DNS:ks-apiserver.kubesphere-system.svc,DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      crt,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(gen.status, 0, gen.stderr);
  tlsCert = readFileSync(crt, 'utf8');

  const applied = await ok(['apply', '-k', 'deploy/']);
  assert.match(applied, /deployment\.apps\/ks-apiserver created/);
  assert.match(
    applied,
    /customresourcedefinition\.apiextensions\.k8s\.io\/users\.iam\.kubesphere\.io created/,
  );
  await ok([
    '-n',
    'kubesphere-system',
    'create',
    'secret',
    'tls',
    'ks-apiserver-tls',
    `--cert=${crt}`,
    `--key=${key}`,
  ]);

  clientSecret = randomBytes(16).toString('hex');
  const example = readFileSync(join(ROOT, 'deploy', 'examples', 'clusterconfiguration.yaml'), 'utf8');
  assert.ok(example.includes('REPLACE_WITH_CLIENT_SECRET'));
  await ok(['apply', '-f', '-'], example.replaceAll('REPLACE_WITH_CLIENT_SECRET', clientSecret));
  const cc = await getJson(['-n', 'kubesphere-system', 'get', 'clusterconfiguration', 'ks-installer']);
  assert.equal((at(cc, 'spec.authentication.oauthOptions.clients') as Obj[])[0].name, 'kubesphere');
});

test('two replicas start in cluster mode, issue tokens either can verify, and serve the node list', {
  skip,
  timeout: 300_000,
}, async () => {
  assert.ok(clientSecret, 'the previous test applied the manifests');
  redisPort = await startRedis();
  // The pod's projected token, as `kubectl create token` issues it for the Deployment's service account.
  const saToken = (
    await ok(['-n', 'kubesphere-system', 'create', 'token', 'kubesphere', '--duration=2h'])
  ).trim();
  assert.notEqual(saToken, dev?.token);
  const first = await startReplica('replica-1', redisPort, saToken);
  assert.match(first.stdout(), /using the in-cluster service account/);
  assert.ok(
    first.stdout().includes(`"server":"https://127.0.0.1:${dev?.port}"`),
    'talks to KUBERNETES_SERVICE_HOST:PORT',
  );
  // Printed for people on stderr (stdout carries only JSON log lines).
  const pw = /random password[^\n]*:\n\n\s+(\S+)/.exec(first.stderr())?.[1];
  assert.ok(pw, `the first replica prints the initial admin password once\n${first.stderr()}`);
  adminPassword = pw;
  const second = await startReplica('replica-2', redisPort, saToken);
  assert.doesNotMatch(second.stderr(), /random password/, 'the admin user is created once');

  for (const r of [first, second]) {
    let ready = 0;
    for (let i = 0; i < 120 && ready !== 200; i++) {
      ready = (await fetch(`http://127.0.0.1:${r.port}/readyz`)).status;
      if (ready !== 200) await new Promise((res) => setTimeout(res, 500));
    }
    assert.equal(ready, 200, 'readiness probe passes');
    assert.equal((await fetch(`http://127.0.0.1:${r.port}/livez`)).status, 200);
  }

  // The generated HS256 key lives in the cluster, shared by both replicas.
  const jwt = await getJson(['-n', 'kubesphere-system', 'get', 'secret', 'kapiserver-jwt-secret']);
  assert.ok(at(jwt, 'data.jwtSecret'));

  // A token from replica 1 (client from the ClusterConfiguration) works on replica 2, as behind the Service.
  let tokenRes: Response | undefined;
  for (let i = 0; i < 40; i++) {
    tokenRes = await fetch(`http://127.0.0.1:${first.port}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'admin',
        password: pw,
        client_id: 'kubesphere',
        client_secret: clientSecret,
      }),
    });
    if (tokenRes.status === 200) break;
    await new Promise((res) => setTimeout(res, 500)); // the ClusterConfiguration watch may still be syncing
  }
  const tokenText = (await tokenRes?.text()) ?? '';
  assert.equal(tokenRes?.status, 200, tokenText);
  const { access_token: token } = JSON.parse(tokenText) as { access_token: string };
  // The shipped default client is gone: the ClusterConfiguration replaced the client list.
  const defaultClient = await fetch(`http://127.0.0.1:${first.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      username: 'admin',
      password: pw,
      client_id: 'kubesphere',
      client_secret: 'kubesphere',
    }),
  });
  assert.equal(defaultClient.status, 401);

  const nodes = await fetch(`http://127.0.0.1:${second.port}/kapis/resources.kubesphere.io/v1alpha3/nodes`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(nodes.status, 200, await nodes.clone().text());
  const body = (await nodes.json()) as { items: { metadata: { name: string } }[]; totalItems: number };
  assert.ok(body.totalItems >= 3);
  assert.ok(body.items.some((n) => n.metadata.name === 'node1'));

  // Forwarded to the orchestrator with the service account's credentials.
  const forwarded = await fetch(`http://127.0.0.1:${first.port}/api/v1/nodes`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(forwarded.status, 200, await forwarded.clone().text());
  assert.equal(((await forwarded.json()) as { kind: string }).kind, 'NodeList');

  // The HTTPS port serves the certificate from the ks-apiserver-tls Secret.
  const secure = await new Promise<number>((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port: second.securePort,
          path: '/healthz',
          ca: tlsCert,
          servername: 'ks-apiserver.kubesphere-system.svc',
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
      .on('error', reject);
  });
  assert.equal(secure, 200);

  // Logout on one replica revokes the token on the other (shared Redis token store).
  const logout = await fetch(`http://127.0.0.1:${second.port}/oauth/logout`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(logout.status, 200);
  const after = await fetch(`http://127.0.0.1:${first.port}/kapis/resources.kubesphere.io/v1alpha3/nodes`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(after.status, 401);

  for (const r of [first, second]) {
    r.child.kill('SIGTERM');
    assert.equal(await r.exited, 0, r.stderr());
  }
  assert.ok(!existsSync(join(work, 'replica-1', 'data', 'jwt-secret')), 'no per-replica key file');
});

test('with only its own ClusterRole and Role (forwarding ceiling removed) kapiserver still works, and the cluster refuses the rest', {
  skip,
  timeout: 300_000,
}, async () => {
  assert.ok(adminPassword && redisPort, 'the previous tests ran');
  await ok(['delete', 'clusterrolebinding', 'kubesphere-forwarding']);
  const saToken = (await ok(['-n', 'kubesphere-system', 'create', 'token', 'kubesphere'])).trim();

  // The service account's rights, seen with the real kubectl.
  const asSa = (args: string[]) => kubectl(['--token', saToken, ...args]);
  const nodes = await asSa(['get', 'nodes', '-o', 'name']);
  assert.equal(nodes.status, 0, nodes.stderr);
  assert.match(nodes.stdout, /node\/node1/);
  const createCm = await asSa(['-n', 'default', 'create', 'configmap', 'not-granted']);
  assert.notEqual(createCm.status, 0);
  assert.match(
    createCm.stderr,
    /forbidden: User "system:serviceaccount:kubesphere-system:kubesphere" cannot create resource "configmaps"/,
  );
  const deleteNode = await asSa(['delete', 'node', 'node3']);
  assert.notEqual(deleteNode.status, 0);
  assert.match(deleteNode.stderr, /forbidden/i);

  // A token outlives nothing: once its ServiceAccount is deleted (even if re-created) it is refused.
  await ok(['-n', 'default', 'create', 'serviceaccount', 'short-lived']);
  const stale = (await ok(['-n', 'default', 'create', 'token', 'short-lived'])).trim();
  await ok(['-n', 'default', 'delete', 'serviceaccount', 'short-lived']);
  await ok(['-n', 'default', 'create', 'serviceaccount', 'short-lived']);
  const refusedStale = await kubectl(['--token', stale, 'get', 'namespaces']);
  assert.notEqual(refusedStale.status, 0);
  assert.match(refusedStale.stderr, /Unauthorized|must be logged in/);

  // kapiserver needs nothing more than those roles: it starts, becomes ready, issues tokens, serves /kapis.
  const replica = await startReplica('replica-3', redisPort, saToken);
  let ready = 0;
  for (let i = 0; i < 120 && ready !== 200; i++) {
    ready = (await fetch(`http://127.0.0.1:${replica.port}/readyz`)).status;
    if (ready !== 200) await new Promise((res) => setTimeout(res, 500));
  }
  assert.equal(
    ready,
    200,
    (await (await fetch(`http://127.0.0.1:${replica.port}/readyz?verbose`)).text()) + replica.stdout(),
  );
  const tokenRes = await fetch(`http://127.0.0.1:${replica.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      username: 'admin',
      password: adminPassword,
      client_id: 'kubesphere',
      client_secret: clientSecret,
    }),
  });
  assert.equal(tokenRes.status, 200);
  const auth = {
    authorization: `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`,
  };
  // A machine client: a service account's token scrapes /metrics, checked with the TokenReview these roles allow.
  await ok(['create', 'serviceaccount', 'scraper', '-n', 'default']);
  await ok(['create', 'clusterrole', 'metrics-reader', '--verb=get', '--non-resource-url=/metrics']);
  await ok([
    'create',
    'clusterrolebinding',
    'scraper',
    '--clusterrole=metrics-reader',
    '--serviceaccount=default:scraper',
  ]);
  const scraper = {
    authorization: `Bearer ${(await ok(['-n', 'default', 'create', 'token', 'scraper'])).trim()}`,
  };
  let scraped = 0;
  for (let i = 0; i < 60 && scraped !== 200; i++) {
    scraped = (await fetch(`http://127.0.0.1:${replica.port}/metrics`, { headers: scraper })).status;
    if (scraped !== 200) await new Promise((res) => setTimeout(res, 500));
  }
  assert.equal(scraped, 200, replica.stdout());
  const list = await fetch(`http://127.0.0.1:${replica.port}/kapis/resources.kubesphere.io/v1alpha3/nodes`, {
    headers: auth,
  });
  assert.equal(list.status, 200);
  assert.equal((await fetch(`http://127.0.0.1:${replica.port}/api/v1/nodes`, { headers: auth })).status, 200);

  // Even the platform admin cannot make kapiserver do what its service account may not: the cluster answers 403.
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'through-kapiserver' },
    data: { a: 'b' },
  };
  const refused = await fetch(`http://127.0.0.1:${replica.port}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(cm),
  });
  assert.equal(refused.status, 403);
  const status = (await refused.json()) as { kind: string; message: string };
  assert.equal(status.kind, 'Status');
  assert.match(status.message, /system:serviceaccount:kubesphere-system:kubesphere/);

  // Re-applying the manifests restores the forwarding ceiling, without a restart.
  await ok(['apply', '-k', 'deploy/']);
  const created = await fetch(`http://127.0.0.1:${replica.port}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(cm),
  });
  assert.equal(created.status, 201, await created.clone().text());
  replica.child.kill('SIGTERM');
  assert.equal(await replica.exited, 0, replica.stderr());
});
