// The Prometheus client's bounds, against stand-in servers over real sockets: a timeout per query, a cap on queries
// in flight shared by all callers, a cap on the size of an answer.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { PrometheusClient } from '../../../../src/apiserver/kapis/monitoring/prometheus.ts';

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const EMPTY_VECTOR = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } });
const options = { timeoutMs: 30_000, concurrency: 16, maxResponseBytes: 1024 * 1024 };

test('a query Prometheus never answers fails after the timeout, naming it', async () => {
  const url = await serve(() => {});
  const client = new PrometheusClient(url, { ...options, timeoutMs: 200 });
  await assert.rejects(client.query('up', 1), (err: Error) => {
    assert.equal(err.message, `Post "${url}/api/v1/query": no answer within 0.2s`);
    return true;
  });
});

test('at most `concurrency` queries are in flight at once; the rest wait and all complete', async () => {
  let inFlight = 0;
  let most = 0;
  const url = await serve((req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    req.resume();
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' }).end(EMPTY_VECTOR);
    }, 30);
  });
  const client = new PrometheusClient(url, { ...options, concurrency: 2 });
  const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => client.query(`up${i}`, 1)));
  assert.equal(answers.length, 7);
  assert.ok(answers.every((a) => a.resultType === 'vector'));
  assert.equal(most, 2);
});

test('a query waiting for a slot counts the wait in its time: it fails with the query ahead of it', async () => {
  let received = 0;
  const url = await serve((req) => {
    received++;
    req.resume();
  });
  const timeoutMs = 2000;
  const client = new PrometheusClient(url, { ...options, timeoutMs, concurrency: 1 });
  const settledAt: number[] = [];
  const timed = (p: Promise<unknown>, i: number) =>
    p.finally(() => {
      settledAt[i] = performance.now();
    });
  const results = await Promise.allSettled([
    timed(client.query('first', 1), 0),
    timed(client.query('second', 1), 1),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.match(String((results[1] as PromiseRejectedResult).reason), /no answer within 2s/);
  assert.ok(received >= 1, 'the first query held the slot');
  // Had its wait not counted, the second would have had a whole timeout of its own once the first's slot came free.
  // (Both are due at the same moment: the second may still be sent in the instant between the first's timer and its
  // own, so whether it reached the server is not asserted.)
  const apart = settledAt[1] - settledAt[0];
  assert.ok(apart < timeoutMs / 2, `the second failed ${Math.round(apart)} ms after the first`);
});

test('an answer larger than the cap is an error, not buffered whole', async () => {
  const big = JSON.stringify({
    status: 'success',
    data: { resultType: 'vector', result: [{ metric: { pad: 'x'.repeat(4096) }, value: [1, '1'] }] },
  });
  const url = await serve((req, res) => {
    req.resume();
    // Chunked, without a content-length: the cap is applied while reading.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(big.slice(0, 2000));
    res.end(big.slice(2000));
  });
  const client = new PrometheusClient(url, { ...options, maxResponseBytes: 1024 });
  await assert.rejects(client.query('up', 1), /larger than 1024 bytes/);
});

test('a scalar answer has no series: read as an empty vector, as KubeSphere does', async () => {
  const url = await serve((req, res) => {
    req.resume();
    res
      .writeHead(200)
      .end(JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [1, '2'] } }));
  });
  const answer = await new PrometheusClient(url, options).query('scalar(1)', 1);
  assert.deepEqual(answer, { resultType: 'vector', result: [] });
});
