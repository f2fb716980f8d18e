// The console's terminal messages as ks-apiserver reads them (Go's case-insensitive JSON keys), and the shells tried.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseClientMessage, shellsFor } from '../../../../src/apiserver/kapis/terminal/session.ts';

test('stdin and resize messages, keys in any case; anything else is not a message', () => {
  assert.deepEqual(parseClientMessage('{"Op":"stdin","Data":"ls\\r"}'), { op: 'stdin', data: 'ls\r' });
  assert.deepEqual(parseClientMessage('{"op":"stdin","data":"x"}'), { op: 'stdin', data: 'x' });
  assert.deepEqual(parseClientMessage('{"OP":"resize","COLS":80,"rows":24}'), {
    op: 'resize',
    cols: 80,
    rows: 24,
  });
  assert.deepEqual(parseClientMessage('{"Op":"resize"}'), { op: 'resize', cols: 0, rows: 0 });
  for (const bad of [
    'not json',
    '[]',
    'null',
    '"stdin"',
    '{"Op":"toast","Data":"x"}',
    '{"Op":"STDIN","Data":"x"}',
    '{"Op":"stdin","Data":5}',
    '{"Op":"resize","Cols":-1,"Rows":24}',
    '{"Op":"resize","Cols":1.5,"Rows":24}',
    '{"Op":"resize","Cols":70000,"Rows":24}',
  ]) {
    assert.equal(parseClientMessage(bad), undefined, bad);
  }
});

test('a chosen bash or sh is the only shell; anything else tries bash, then sh', () => {
  assert.deepEqual(shellsFor('sh'), ['sh']);
  assert.deepEqual(shellsFor('bash'), ['bash']);
  for (const other of ['', 'zsh', '/bin/sh', 'sh; rm -rf /'])
    assert.deepEqual(shellsFor(other), ['bash', 'sh']);
});
