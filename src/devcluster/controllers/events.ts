// Events the controllers record (core/v1 Event), as kube-controller-manager's event recorders write them.
import { randomBytes } from 'node:crypto';
import type { Obj } from '../store.ts';
import { type ControllerContext, FIELD_MANAGER, timestamp } from './framework.ts';

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
  const at = timestamp(ctx.now());
  try {
    ctx.rest.create(
      ctx.def('', 'events'),
      ns,
      {
        metadata: { name: `${String(meta.name)}.${randomBytes(8).toString('hex')}`, namespace: ns },
        involvedObject: {
          apiVersion: involved.apiVersion,
          kind: involved.kind,
          namespace: meta.namespace,
          name: meta.name,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
          ...(detail.fieldPath ? { fieldPath: detail.fieldPath } : {}),
        },
        reason,
        message,
        type,
        source: detail.host ? { component, host: detail.host } : { component },
        reportingComponent: component,
        reportingInstance: detail.host ?? '',
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    // An event is best effort (e.g. its namespace is terminating); the controller's work does not depend on it.
    ctx.logger?.debug({ reason, err: String(err) }, 'event not recorded');
  }
}
