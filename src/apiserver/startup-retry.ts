// Start-up work against the cluster that must succeed in the end (creating built-in objects): it runs once the CRDs
// it needs exist, and is retried every two seconds, with a warning, until it succeeds or the server closes.
import type { BaseContext } from './context.ts';

const RETRY_MS = 2000;

/** Runs `work` after `ready` resolves, retrying until it succeeds or the server closes; `what` names it in logs. */
export function retryUntilDone(
  ctx: Pick<BaseContext, 'logger' | 'onClose'>,
  ready: Promise<unknown>,
  what: string,
  work: () => Promise<unknown>,
): Promise<void> {
  let closed = false;
  ctx.onClose(() => {
    closed = true;
  });
  return (async () => {
    try {
      await ready;
    } catch {
      return; // shutting down
    }
    while (!closed) {
      try {
        await work();
        return;
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message }, `${what} not created yet; retrying`);
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
  })();
}
