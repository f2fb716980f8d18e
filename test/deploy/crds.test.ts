// deploy/crds/ is generated from the CRD definitions kapiserver installs; this fails when they drift apart.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { CRDS_DIR, renderCrdFiles } from '../../deploy/gen-crds.ts';
import { KUBESPHERE_CRDS } from '../../src/apiserver/crds/index.ts';

test('deploy/crds matches src/apiserver/crds (regenerate with: npx tsx deploy/gen-crds.ts)', () => {
  const expected = renderCrdFiles();
  assert.deepEqual(readdirSync(CRDS_DIR).sort(), [...expected.keys()].sort());
  for (const [name, content] of expected) {
    assert.equal(readFileSync(join(CRDS_DIR, name), 'utf8'), content, `deploy/crds/${name} is stale`);
  }
});

test('every CRD kapiserver installs is in the manifests, including User and ClusterConfiguration', () => {
  const names = KUBESPHERE_CRDS.map((c) => c.metadata.name);
  assert.ok(names.includes('users.iam.kubesphere.io'));
  assert.ok(names.includes('clusterconfigurations.installer.kubesphere.io'));
  for (const name of names) {
    const doc = parse(readFileSync(join(CRDS_DIR, `${name}.yaml`), 'utf8')) as {
      kind: string;
      metadata: { name: string };
    };
    assert.equal(doc.kind, 'CustomResourceDefinition');
    assert.equal(doc.metadata.name, name);
  }
});
