// The credential filter on its own: values split across chunks at every byte, braces and quotes inside strings,
// pretty-printed bodies and watch streams come out whole and without credentials; a body that is not JSON ends the
// stream with an error that quotes none of it.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import { withoutCredentials } from '../../../src/apiserver/iam/user-credentials.ts';
import { CredentialFilter, userAccept } from '../../../src/apiserver/proxy/user-filter.ts';

const HASH = `$2a$10$${'a'.repeat(53)}`;
const user = (name: string) => ({
  kind: 'User',
  metadata: {
    name,
    annotations: {
      note: 'braces } { and "quotes" \\ stay',
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
        spec: { password: 'plain-Secret-1' },
      }),
    },
  },
  spec: { email: `${name}@example.com`, password: HASH, encryptedPassword: 'x', description: `old ${HASH}` },
});

async function filterChunks(chunks: Buffer[]): Promise<string> {
  return text(Readable.from(chunks).pipe(new CredentialFilter()));
}

function splitEvery(body: string, size: number): Buffer[] {
  const b = Buffer.from(body);
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

test('values split at any byte come out whole and clean', async () => {
  const events = ['ADDED', 'MODIFIED'].map((type, i) => JSON.stringify({ type, object: user(`u${i}`) }));
  const body = `${events.join('\n')}\n`;
  for (const size of [1, 2, 7, 64, body.length]) {
    const out = await filterChunks(splitEvery(body, size));
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 2, `chunks of ${size}`);
    assert.deepEqual(lines[1].object.metadata.annotations.note, 'braces } { and "quotes" \\ stay');
    assert.ok(!out.includes('$2a$') && !out.includes('"password"') && !out.includes('plain-Secret-1'), out);
    assert.equal(lines[0].object.spec.email, 'u0@example.com');
  }
});

test('a pretty-printed list is one value', async () => {
  const body = JSON.stringify({ kind: 'UserList', items: [user('a'), user('b')] }, null, 2);
  const out = JSON.parse(await filterChunks(splitEvery(body, 5)));
  assert.deepEqual(
    out.items.map((u: { metadata: { name: string } }) => u.metadata.name),
    ['a', 'b'],
  );
  assert.deepEqual(out, JSON.parse(JSON.stringify(withoutCredentials(JSON.parse(body)))));
  assert.ok(!JSON.stringify(out).includes('$2a$'));
});

test('a body that is not JSON ends the stream with an error quoting none of it', async () => {
  for (const body of [`password: ${HASH}\n`, `{"spec":{"password":"${HASH}"}`, `{"a":${HASH}}`]) {
    await assert.rejects(filterChunks([Buffer.from(body)]), (err: Error) => {
      assert.ok(!err.message.includes('$2a$'), err.message);
      return true;
    });
  }
});

test('accept: JSON choices kept, wildcards read as JSON, nothing JSON is a 406', () => {
  assert.equal(userAccept(undefined), 'application/json');
  assert.equal(
    userAccept('application/json;as=Table;v=v1;g=meta.k8s.io, application/json'),
    'application/json;as=Table;v=v1;g=meta.k8s.io, application/json',
  );
  assert.equal(userAccept('application/vnd.kubernetes.protobuf, */*'), 'application/json');
  assert.throws(
    () => userAccept('application/yaml'),
    (e: { code?: number }) => e.code === 406,
  );
});
