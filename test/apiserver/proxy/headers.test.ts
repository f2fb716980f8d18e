// Header hygiene of the pass-through path (proxy/headers.ts), on the header objects it rewrites in place: hop-by-hop
// headers and whatever Connection names never travel on, whatever the Connection header's spelling.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { rewriteForUpstream, stripResponseHopByHop } from '../../../src/apiserver/proxy/headers.ts';

const identity = { authorization: 'Bearer cluster' };

/** The request headers that would reach the orchestrator (undefined ones are skipped by undici). */
function upstream(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out = rewriteForUpstream({ ...headers }, headers, identity) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

test('a request with Connection: keep-alive keeps its other headers and loses the hop-by-hop ones', () => {
  for (const connection of ['keep-alive', 'Keep-Alive', ' keep-alive ']) {
    const out = upstream({
      connection,
      'keep-alive': 'timeout=5',
      accept: 'application/json',
      authorization: 'Bearer user-token',
      'x-custom': '1',
    });
    assert.deepEqual(out, { accept: 'application/json', 'x-custom': '1', authorization: 'Bearer cluster' });
  }
});

test('headers that Connection names stay behind, in requests and responses', () => {
  for (const connection of ['keep-alive, X-Drop-Me', 'X-Drop-Me', 'close,x-drop-me']) {
    const out = upstream({ connection, 'x-drop-me': 'secret', 'x-keep': '1' });
    assert.equal(out['x-drop-me'], undefined, connection);
    assert.equal(out.connection, undefined, connection);
    assert.equal(out['x-keep'], '1', connection);

    const response: Record<string, string | string[] | undefined> = {
      connection,
      'keep-alive': 'timeout=65',
      'transfer-encoding': 'chunked',
      'x-drop-me': 'v',
      'content-type': 'application/json',
    };
    stripResponseHopByHop(response);
    assert.deepEqual(response, { 'content-type': 'application/json' }, connection);
  }
});

test('a response with Connection: keep-alive keeps everything else', () => {
  const response: Record<string, string | string[] | undefined> = {
    connection: 'keep-alive',
    'keep-alive': 'timeout=65',
    'content-length': '12',
    'content-type': 'application/json',
  };
  stripResponseHopByHop(response);
  assert.deepEqual(response, { 'content-length': '12', 'content-type': 'application/json' });
});
