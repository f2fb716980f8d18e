// Forwarding of the requests that need nothing but forwarding (no write guard, no credential filter): the common GET
// and watch. One undici dispatch per request, with one handler object that writes the orchestrator's status and
// headers (hop-by-hop ones dropped, in place) and then its body chunks straight to the client's response, with
// backpressure both ways. No reply-from, no intermediate stream, no promise: this is the hot path (issue 17).
// Kept from the general path (forward.ts): the same upstream header rules (headers.ts), request bodies streamed as
// they arrive, watches' headers flushed at once, a client that goes away aborting the upstream request, and an
// unreachable orchestrator answered with a 503 Status (or the connection cut once the answer has begun).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { type ForwardIdentity, rewriteForUpstream, stripResponseHopByHop } from './headers.ts';

/** Where and how plain requests are forwarded; made once per server. */
export interface PassThroughTarget {
  dispatcher: Dispatcher;
  /** The orchestrator's origin (scheme, host, port) and its Host header. */
  origin: string;
  host: string;
  /** Answers (or cuts) `res` when the orchestrator could not be asked or failed mid-answer. */
  onError(res: ServerResponse, error: Error): void;
}

/**
 * How much of an answer may wait in the client's response (kapiserver's buffer and its socket's) before reading
 * upstream pauses. Pausing at the socket's own 16 KiB mark paused once per chunk of a large list: each pause lets the
 * upstream socket collect several decrypted records that undici then reads as one new, copied buffer, and those
 * allocations set off V8's full collections, whose cost grows with kapiserver's heap (a 1 MB list cost ~1.2x the
 * bare forwarder's CPU, issue 17). 256 KiB pauses a few times per MB instead of ~60; bounded per answer, so a slow
 * client still holds back upstream reading (at most 32 MiB over the pool's 128 connections).
 */
const PAUSE_AT_BYTES = 256 * 1024;

/** The status codes a response may carry; anything else from upstream is a protocol error. */
const isValidStatus = (code: number) => code >= 100 && code <= 599;

class PassThroughHandler implements Dispatcher.DispatchHandler {
  private controller?: Dispatcher.DispatchController;
  private failed = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly target: PassThroughTarget,
    private readonly longRunning: boolean,
  ) {
    // The one closure every request needs: a client that goes away before the answer is complete aborts upstream.
    res.once('close', this.clientClosed);
  }

  private readonly clientClosed = (): void => {
    if (!this.res.writableFinished) this.controller?.abort(new Error('the client went away'));
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.res.destroyed) controller.abort(new Error('the client went away'));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // interim (1xx) answers are not relayed
    if (!isValidStatus(statusCode)) {
      controller.abort(new Error(`the orchestrator answered with status ${statusCode}`));
      return;
    }
    const res = this.res;
    stripResponseHopByHop(headers);
    // An HTTP/1 connection cannot be reused before its request body was read: close it when the answer came first.
    if (!this.req.complete) headers.connection = 'close';
    res.writeHead(statusCode, headers as Record<string, string | string[]>);
    // Node sends headers with the first body chunk; watch clients wait for the headers before the first event.
    if (this.longRunning) res.flushHeaders();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.res.write(chunk) || this.res.writableLength < PAUSE_AT_BYTES) return;
    // The client reads slower than the orchestrator answers: read no more upstream until it catches up (a write that
    // returned false is always followed by 'drain').
    controller.pause();
    this.res.once('drain', () => controller.resume());
  }

  onResponseEnd(): void {
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.failed) return;
    this.failed = true;
    if (this.res.destroyed) return; // the client went away: nobody to answer
    this.target.onError(this.res, error);
  }
}

/**
 * Forwards `req` (its path and query as sent; `body`: the request body stream, if any) to the orchestrator and
 * writes the answer to `res`. Errors go to `target.onError`; nothing is thrown or returned.
 */
export function passThrough(
  target: PassThroughTarget,
  req: IncomingMessage,
  res: ServerResponse,
  body: Readable | undefined,
  identity: ForwardIdentity,
  longRunning: boolean,
): void {
  const headers = rewriteForUpstream({ ...req.headers }, req.headers, identity);
  headers.host = target.host;
  // undici hands a request it refuses before sending (a header it does not support) to the handler's error path.
  target.dispatcher.dispatch(
    {
      origin: target.origin,
      path: req.url ?? '/',
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: headers as Record<string, string | string[]>,
      body: body ?? null,
    },
    new PassThroughHandler(req, res, target, longRunning),
  );
}
