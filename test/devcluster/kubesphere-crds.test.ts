// KubeSphere v3.4.1's own CRDs (test/fixtures/kubesphere-crds, all of ks-core's) against the dev cluster with the
// real kubectl: each CRD applies with kubectl's default strict field validation, and a sample object of each kind
// (built from the schema's required fields) applies strictly too and reads back with its metadata whole, although
// the schemas declare `metadata: {type: object}` (kube-apiserver honours only name/generateName constraints there).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

type Obj = Record<string, unknown>;
const DIR = join(import.meta.dirname, '..', 'fixtures', 'kubesphere-crds');
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const crds: Obj[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((d) => d.toJS() as unknown))
  .filter(isObj);

/** The smallest value the schema accepts: required properties only, the first enum value, minimums. */
function sample(schema: Obj): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const props = isObj(schema.properties) ? schema.properties : {};
      const out: Obj = {};
      for (const r of Array.isArray(schema.required) ? schema.required : [])
        if (isObj(props[String(r)])) out[String(r)] = sample(props[String(r)] as Obj);
      return out;
    }
    case 'array':
      return isObj(schema.items) && typeof schema.minItems === 'number' && schema.minItems > 0
        ? [sample(schema.items)]
        : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return schema['x-kubernetes-int-or-string'] === true ? 1 : 'sample';
  }
}

interface Kind {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  schema: Obj;
}

const kinds: Kind[] = crds.map((crd) => {
  const spec = crd.spec as Obj;
  const names = spec.names as Obj;
  const version = (spec.versions as Obj[]).find((v) => v.storage === true) as Obj;
  return {
    group: String(spec.group),
    version: String(version.name),
    plural: String(names.plural),
    kind: String(names.kind),
    namespaced: spec.scope === 'Namespaced',
    schema: (version.schema as Obj).openAPIV3Schema as Obj,
  };
});

const OWNER = 'crd-samples-owner';
let ownerUid = '';

const metadataOf = (k: Kind): Obj => ({
  name: `sample-${k.plural}`,
  ...(k.namespaced ? { namespace: 'default' } : {}),
  labels: { 'kubesphere.io/workspace': 'demo', 'app.kubernetes.io/name': k.plural },
  annotations: { 'kubesphere.io/creator': 'admin', 'kubesphere.io/description': `a sample ${k.kind}` },
  // A live cluster-scoped owner (valid for both scopes): the garbage collector deletes dependents of missing owners.
  ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: OWNER, uid: ownerUid }],
});

function sampleObject(k: Kind): Obj {
  const body = sample(k.schema) as Obj;
  delete body.metadata;
  return {
    ...body,
    apiVersion: `${k.group}/${k.version}`,
    kind: k.kind,
    metadata: metadataOf(k),
  };
}

if (!hasKubectl) console.log(`# skipping KubeSphere CRD tests: ${NO_KUBECTL}`);

describe('KubeSphere v3.4.1 CRDs on the dev cluster', {
  skip: !hasKubectl && NO_KUBECTL,
  timeout: 300_000,
}, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    const owner = await devRequest(dev, 'POST', '/api/v1/namespaces', { metadata: { name: OWNER } });
    assert.equal(owner.status, 201, owner.text);
    ownerUid = String(((owner.body as Obj).metadata as Obj).uid);
  });
  after(() => dev?.close());

  it('ships every ks-core CRD as a fixture', () => {
    assert.ok(kinds.length >= 34, `only ${kinds.length} CRDs in ${DIR}`);
    assert.ok(kinds.some((k) => k.kind === 'User' && k.group === 'iam.kubesphere.io'));
  });

  it('applies every CRD with strict field validation and serves each kind', async () => {
    const r = await kubectl.run(['apply', '--validate=strict', '-f', DIR]);
    assert.equal(r.status, 0, r.stderr);
    for (const k of kinds)
      assert.match(r.stdout, new RegExp(`${k.plural}\\.${k.group.replace(/\./g, '\\.')} created`));
    const resources = await kubectl.run(['api-resources', '-o', 'name']);
    assert.equal(resources.status, 0, resources.stderr);
    for (const k of kinds)
      assert.ok(resources.stdout.includes(`${k.plural}.${k.group}\n`), `${k.plural}.${k.group}`);
  });

  it('applies a sample object of each kind strictly and keeps its metadata', async () => {
    const docs = kinds.map((k) => JSON.stringify(sampleObject(k))).join('\n---\n');
    const r = await kubectl.run(['apply', '--validate=strict', '-f', '-'], docs);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    for (const k of kinds) {
      const ns = k.namespaced ? '/namespaces/default' : '';
      const got = await devRequest(
        dev,
        'GET',
        `/apis/${k.group}/${k.version}${ns}/${k.plural}/sample-${k.plural}`,
      );
      assert.equal(got.status, 200, `${k.kind}: ${got.text}`);
      const meta = (got.body as Obj).metadata as Obj;
      const want = metadataOf(k);
      assert.deepEqual(meta.labels, want.labels, `${k.kind} labels`);
      const annotations = { ...(meta.annotations as Obj) };
      delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
      assert.deepEqual(annotations, want.annotations, `${k.kind} annotations`);
      assert.deepEqual(meta.ownerReferences, want.ownerReferences, `${k.kind} ownerReferences`);
    }
  });

  it('keeps metadata without client validation too, and refuses an unknown field under spec strictly', async () => {
    const user = kinds.find((k) => k.kind === 'User') as Kind;
    const obj = { ...sampleObject(user), metadata: { ...metadataOf(user), name: 'loose' } };
    const created = await kubectl.run(
      ['create', '--validate=false', '-o', 'json', '-f', '-'],
      JSON.stringify(obj),
    );
    assert.equal(created.status, 0, created.stderr);
    assert.deepEqual((JSON.parse(created.stdout).metadata as Obj).labels, metadataOf(user).labels);
    const bad = { ...obj, metadata: { name: 'bad' }, spec: { email: 'a@b.c', bogus: 1 } };
    const refused = await kubectl.run(['create', '--validate=strict', '-f', '-'], JSON.stringify(bad));
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /unknown field "spec\.bogus"/);
  });

  it('refuses a CRD whose metadata schema declares more than name and generateName', async () => {
    const crd = structuredClone(
      crds.find((c) => (c.spec as Obj).names && ((c.spec as Obj).names as Obj).kind === 'User') as Obj,
    );
    const spec = crd.spec as Obj;
    spec.group = 'example.kapiserver.io';
    crd.metadata = { name: `users.${spec.group}` };
    const schema = ((spec.versions as Obj[])[0].schema as Obj).openAPIV3Schema as Obj;
    (schema.properties as Obj).metadata = { type: 'object', properties: { labels: { type: 'object' } } };
    const r = await kubectl.run(['create', '-f', '-'], JSON.stringify(crd));
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /must not specify anything other than name and generateName/);
  });
});
