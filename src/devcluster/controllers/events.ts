// Events the controllers record (core/v1 Event), as kube-controller-manager's event recorders write them: through an
// EventCorrelator (one per dev cluster), so repeats update one Event's count and a chatty object is rate limited.
import { randomBytes } from 'node:crypto';
import type { Rest } from '../rest.ts';
import type { Obj } from '../store.ts';
import { EventCorrelator } from './event-correlator.ts';
import { type ControllerContext, FIELD_MANAGER, timestamp } from './framework.ts';

const correlators = new WeakMap<Rest, EventCorrelator>();

function correlatorOf(rest: Rest): EventCorrelator {
  let c = correlators.get(rest);
  if (!c) {
    c = new EventCorrelator();
    correlators.set(rest, c);
  }
  return c;
}

export function recordEvent(
  ctx: ControllerContext,
  component: string,
  involved: Obj,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  /** The container an event is about (`spec.containers{name}`) and the node that reports it (a kubelet's). */
  detail: { fieldPath?: string; host?: string } = {},
): void {
  const meta = involved.metadata as Obj;
  const ns = String(meta.namespace ?? 'default');
  const nowMs = ctx.now();
  const involvedObject = {
    apiVersion: involved.apiVersion,
    kind: involved.kind,
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    ...(detail.fieldPath ? { fieldPath: detail.fieldPath } : {}),
  };
  const c = correlatorOf(ctx.rest).correlate(
    {
      component,
      host: detail.host ?? '',
      involved: {
        kind: String(involved.kind ?? ''),
        namespace: String(meta.namespace ?? ''),
        name: String(meta.name ?? ''),
        uid: String(meta.uid ?? ''),
        apiVersion: String(involved.apiVersion ?? ''),
        fieldPath: detail.fieldPath ?? '',
      },
      type,
      reason,
      message,
    },
    nowMs,
    `${String(meta.name)}.${randomBytes(8).toString('hex')}`,
  );
  if (c.skip) return;
  const events = ctx.def('', 'events');
  const at = timestamp(nowMs);
  try {
    const existing = c.repeat ? ctx.store.get('/events', ns, c.name) : undefined;
    if (existing) {
      // What client-go's patch of a repeat changes: count, lastTimestamp and message.
      const guarded = { ...(existing.obj.metadata as Obj), resourceVersion: String(existing.rv) };
      const next = {
        ...existing.obj,
        metadata: guarded,
        message: c.message,
        count: c.count,
        lastTimestamp: at,
      };
      ctx.rest.update(events, ns, c.name, next, { fieldManager: FIELD_MANAGER });
      return;
    }
    // New, or a repeat whose Event is gone (deleted meanwhile): created under its name, as client-go falls back.
    ctx.rest.create(
      events,
      ns,
      {
        metadata: { name: c.name, namespace: ns },
        involvedObject,
        reason,
        message: c.message,
        type,
        source: detail.host ? { component, host: detail.host } : { component },
        reportingComponent: component,
        reportingInstance: detail.host ?? '',
        firstTimestamp: timestamp(c.firstMs),
        lastTimestamp: at,
        count: c.count,
      },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    // An event is best effort (e.g. its namespace is terminating); the controller's work does not depend on it.
    ctx.logger?.debug({ reason, err: String(err) }, 'event not recorded');
  }
}
