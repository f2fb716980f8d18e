// Service allocation over a real dev cluster: cluster IPs from 10.96.0.0/12 and node ports from 30000-32767, unique,
// kept across updates; taken or out-of-range requests are 422 as kube-apiserver's allocators answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../../../src/devcluster/store.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';

let dev: TestDevCluster;
const path = '/api/v1/namespaces/default/services';
const create = (name: string, spec: Obj) =>
  devRequest(dev, 'POST', path, { metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });
const specOf = (r: { body: unknown }) => (r.body as { spec: Obj }).spec;
const message = (r: { body: unknown }) => String((r.body as Obj).message);

describe('Service cluster IPs and node ports', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
  });
  after(async () => {
    await dev?.close();
  });

  it('allocates unique cluster IPs in the service CIDR; None stays headless', async () => {
    const a = specOf(await create('a', {}));
    const b = specOf(await create('b', {}));
    for (const s of [a, b]) assert.match(String(s.clusterIP), /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    assert.notEqual(a.clusterIP, b.clusterIP);
    assert.notEqual(a.clusterIP, '10.96.0.1', 'the kubernetes service keeps its IP');
    assert.equal(specOf(await create('headless', { clusterIP: 'None' })).clusterIP, 'None');
    const taken = await create('c', { clusterIP: a.clusterIP });
    assert.equal(taken.status, 422);
    assert.match(message(taken), /provided IP is already allocated/);
    const outside = await create('d', { clusterIP: '10.0.0.5' });
    assert.equal(outside.status, 422);
    assert.match(message(outside), /not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/12/);
  });

  it('allocates unique node ports, refuses taken or out-of-range ones, keeps them on update', async () => {
    const one = specOf(await create('np1', { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] }));
    const ports = (one.ports as Obj[]).map((p) => p.nodePort as number);
    assert.equal(new Set(ports).size, 2);
    for (const p of ports) assert.ok(p >= 30000 && p <= 32767);
    const taken = await create('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] });
    assert.equal(taken.status, 422);
    assert.match(message(taken), /provided port is already allocated/);
    const low = await create('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] });
    assert.equal(low.status, 422);
    assert.match(message(low), /The range of valid ports is 30000-32767/);
    const cur = (await devRequest(dev, 'GET', `${path}/np1`)).body as Obj;
    const spec = cur.spec as Obj;
    const put = await devRequest(dev, 'PUT', `${path}/np1`, {
      ...cur,
      spec: { ...spec, clusterIP: undefined, clusterIPs: undefined, ports: [{ port: 80 }, { port: 443 }] },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(specOf(put).clusterIP, spec.clusterIP);
    assert.deepEqual(
      (specOf(put).ports as Obj[]).map((p) => p.nodePort),
      ports,
    );
    const moved = await devRequest(dev, 'PUT', `${path}/np1`, {
      ...cur,
      spec: { ...spec, clusterIP: '10.96.9.9' },
    });
    assert.equal(moved.status, 422);
    assert.match(message(moved), /field is immutable/);
  });
});
