// One terminal session: the console's JSON messages on one side, the orchestrator's exec channels on the other
// (reference 9). In: `{"Op":"stdin","Data"}`, `{"Op":"resize","Cols","Rows"}` (keys read case-insensitively, as Go
// decodes them); anything else ends the session. Out: `{"Op":"stdout","Data","Rows":0,"Cols":0}` for stdout and
// stderr alike. With no shell chosen, `bash` is tried and then `sh`: an attempt that fails before printing anything
// gives way to the next, and what was typed meanwhile is replayed to it. The session ends with what ended it written
// as the last output, then a WebSocket close (KubeSphere drops the connection without one).
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { CHANNEL } from './exec-client.ts';

/** The shells KubeSphere allows; any other (or none) means: try them in this order. */
const SHELLS = ['bash', 'sh'];
/** Typed input kept for the next shell while the current one has not printed anything. */
const MAX_REPLAY_BYTES = 64 * 1024;
/** Output waiting for a slow browser beyond this pauses the orchestrator's side. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** WebSocket close reasons are at most 123 bytes. */
const MAX_REASON_BYTES = 120;

export function shellsFor(shell: string): string[] {
  return SHELLS.includes(shell) ? [shell] : SHELLS;
}

/** How the orchestrator ended an attempt: its `Status` on the error channel, or why it could not start. */
interface Outcome {
  ok: boolean;
  message: string;
  /** True when the failure came from the process (the exec started), so another shell may do better. */
  fromProcess: boolean;
}

type ClientMessage = { op: 'stdin'; data: string } | { op: 'resize'; cols: number; rows: number };

/** A console message, or undefined when it is not one (which ends the session). */
export function parseClientMessage(raw: string): ClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = new Map(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
  const op = fields.get('op');
  if (op === 'stdin') {
    const data = fields.get('data') ?? '';
    return typeof data === 'string' ? { op, data } : undefined;
  }
  if (op === 'resize') {
    const cols = fields.get('cols') ?? 0;
    const rows = fields.get('rows') ?? 0;
    const size = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffff;
    return size(cols) && size(rows) ? { op, cols: cols as number, rows: rows as number } : undefined;
  }
  return undefined;
}

/** The message of an error-channel Status; undefined for success. */
function failureOf(payload: Buffer): string | undefined {
  try {
    const status = JSON.parse(payload.toString('utf8')) as { status?: string; message?: string };
    if (status.status === 'Success') return undefined;
    return status.message || 'the command failed';
  } catch {
    return payload.toString('utf8').slice(0, 500) || 'the command failed';
  }
}

function truncateReason(text: string): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= MAX_REASON_BYTES) return text;
  return new StringDecoder('utf8').write(bytes.subarray(0, MAX_REASON_BYTES));
}

export interface SessionOptions {
  shells: string[];
  /** Opens the orchestrator's exec of one shell. */
  open(command: string): WebSocket;
  logger: Logger;
}

/** Runs the session until either side ends it. */
export function runSession(client: WebSocket, opts: SessionOptions): void {
  let backend: WebSocket | undefined;
  let attempt = 0;
  let printed = false;
  let replay: Buffer[] = [];
  let replayBytes = 0;
  let size: { Width: number; Height: number } | undefined;
  let ended = false;
  /** Frames for an exec that is still connecting. */
  let pending: Buffer[] = [];

  const send = (f: Buffer) => {
    if (backend && backend.readyState === backend.OPEN) backend.send(f);
    else pending.push(f);
  };
  const frame = (channel: number, data: Buffer | string) =>
    Buffer.concat([Buffer.of(channel), typeof data === 'string' ? Buffer.from(data) : data]);

  const output = (text: string) => {
    if (!text || client.readyState !== client.OPEN) return;
    client.send(JSON.stringify({ Op: 'stdout', Data: text, Rows: 0, Cols: 0 }), () => {
      if (backend?.isPaused && client.bufferedAmount < HIGH_WATER_BYTES / 2) backend.resume();
    });
    if (client.bufferedAmount > HIGH_WATER_BYTES) backend?.pause();
  };

  const end = (code: number, reason: string, lastWords?: string) => {
    if (ended) return;
    ended = true;
    if (lastWords) output(`\r\n${lastWords}\r\n`);
    backend?.terminate();
    if (client.readyState === client.OPEN) client.close(code, truncateReason(reason));
  };

  const start = () => {
    const command = opts.shells[attempt];
    printed = false;
    // A later shell gets what was typed for the one before it.
    pending = [...replay];
    const ws = opts.open(command);
    backend = ws;
    const decoder = new StringDecoder('utf8');
    let outcome: Outcome | undefined;
    ws.on('open', () => {
      if (size) ws.send(frame(CHANNEL.resize, JSON.stringify(size)));
      for (const f of pending) ws.send(f);
      pending = [];
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary || data.length === 0) return;
      const channel = data[0];
      const payload = data.subarray(1);
      if (channel === CHANNEL.stdout || channel === CHANNEL.stderr) {
        if (payload.length === 0) return;
        printed = true;
        replay = [];
        replayBytes = 0;
        output(decoder.write(payload));
      } else if (channel === CHANNEL.error) {
        const failure = failureOf(payload);
        outcome = { ok: failure === undefined, message: failure ?? 'Process exited', fromProcess: true };
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      // The orchestrator refused the exec (no such pod or container, not running, forbidden): its Status says why.
      const chunks: Buffer[] = [];
      let length = 0;
      res.on('data', (c: Buffer) => {
        if (length < 64 * 1024) chunks.push(c);
        length += c.length;
      });
      res.on('end', () => {
        const failure = failureOf(Buffer.concat(chunks)) ?? `the cluster answered ${res.statusCode}`;
        outcome = { ok: false, message: failure, fromProcess: false };
        ws.terminate();
      });
      res.on('error', () => ws.terminate());
    });
    ws.on('error', (err) => {
      outcome ??= { ok: false, message: `cannot open the terminal: ${err.message}`, fromProcess: false };
      opts.logger.warn({ err: err.message }, 'terminal: exec connection failed');
    });
    ws.on('close', () => {
      if (ws !== backend || ended) return;
      const result = outcome ?? { ok: true, message: 'Process exited', fromProcess: true };
      if (!result.ok && result.fromProcess && !printed && attempt + 1 < opts.shells.length) {
        attempt += 1;
        return start();
      }
      output(decoder.end());
      if (result.ok) end(1000, result.message);
      else end(1000, result.message, result.message);
    });
  };

  client.on('message', (data: Buffer, isBinary: boolean) => {
    const message = isBinary ? undefined : parseClientMessage(data.toString('utf8'));
    if (!message) return end(1003, 'unsupported message: expected {"Op":"stdin"|"resize", ...}');
    if (message.op === 'stdin') {
      if (!message.data) return;
      const f = frame(CHANNEL.stdin, message.data);
      if (!printed && replayBytes + f.length <= MAX_REPLAY_BYTES) {
        replay.push(f);
        replayBytes += f.length;
      }
      return send(f);
    }
    // Cols and Rows both 0: no size (the console sends it when the terminal is hidden).
    if (message.cols === 0 && message.rows === 0) return;
    size = { Width: message.cols, Height: message.rows };
    send(frame(CHANNEL.resize, JSON.stringify(size)));
  });
  client.on('close', () => {
    ended = true;
    backend?.terminate();
  });
  client.on('error', () => client.terminate());
  start();
}
