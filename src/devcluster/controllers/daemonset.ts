// DaemonSet controller: one pod per node its template selects (nodeSelector, required node affinity) and whose
// taints it tolerates (plus the tolerations the real controller adds), pinned to that node by a matchFields
// affinity and spec.nodeName; RollingUpdate replaces pods of old ControllerRevisions within maxUnavailable; status
// as `kubectl rollout status ds` reads it.
import { StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import { recordEvent } from './events.ts';
import {
  type Controller,
  type ControllerContext,
  controlledBy,
  controllerKey,
  FIELD_MANAGER,
  objectKey,
  ownKey,
  splitKey,
  writeStatus,
} from './framework.ts';
import { nodeSelected, taintsTolerated } from './node-fit.ts';
import { isActive, isReady, msUntilAvailable, podFromTemplate } from './pods.ts';
import { currentRevision, pruneRevisions, REVISION_HASH_LABEL, revisionHash } from './revisions.ts';

const DS = 'apps/daemonsets';
const COMPONENT = 'daemonset-controller';

/** Tolerations every daemon pod gets, so node conditions and cordoning do not evict or exclude it. */
const DAEMON_TOLERATIONS: Obj[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** A node change that can change where daemons run (labels, taints), not a heartbeat. */
function nodePlacementChanged(ev: StoreEvent): boolean {
  if (ev.type !== 'MODIFIED') return true;
  const pick = (o: Obj | undefined) =>
    JSON.stringify([(o?.metadata as Obj | undefined)?.labels, (o?.spec as Obj | undefined)?.taints]);
  return pick(ev.obj) !== pick(ev.prev);
}

export function daemonSetController(ctx: ControllerContext): Controller {
  return {
    name: 'daemonset',
    watches: [
      { res: DS, keys: ownKey },
      { res: '/pods', keys: controllerKey('DaemonSet') },
      {
        res: '/nodes',
        keys: (ev) =>
          nodePlacementChanged(ev) ? ctx.store.list(DS).map((e) => objectKey(e.ns, e.name)) : [],
      },
    ],
    reconcile(key) {
      const { ns, name } = splitKey(key);
      const e = ctx.store.get(DS, ns, name);
      if (!e) return undefined;
      return syncDaemonSet(ctx, e);
    },
  };
}

function withDaemonTolerations(tolerations: unknown): Obj[] {
  const own = Array.isArray(tolerations) ? tolerations.filter(isObj) : [];
  return [
    ...own,
    ...DAEMON_TOLERATIONS.filter((t) => !own.some((o) => o.key === t.key && o.effect === t.effect)),
  ];
}

function syncDaemonSet(ctx: ControllerContext, e: Entry): number | undefined {
  const ds = e.obj;
  const spec = ds.spec as Obj;
  const template = spec.template as Obj;
  const tspec = template.spec as Obj;
  const deleting = !!(ds.metadata as Obj).deletionTimestamp;
  const { update, all } = deleting ? { update: undefined, all: [] } : currentRevision(ctx, ds);
  const hash = update ? revisionHash(update) : '';
  const podDef = ctx.def('', 'pods');
  const nodes = ctx.store.list('/nodes');
  const tolerations = withDaemonTolerations(tspec.tolerations);
  const wanted = new Set(
    nodes.filter((n) => nodeSelected(tspec, n.obj) && taintsTolerated(tolerations, n.obj)).map((n) => n.name),
  );
  const byNode = new Map<string, Entry[]>();
  for (const p of controlledBy(ctx, ds, '/pods').filter((x) => isActive(x.obj))) {
    const node = String((p.obj.spec as Obj).nodeName ?? '');
    byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const doomed: Entry[] = [];
  if (!deleting) {
    for (const [node, pods] of byNode) {
      if (!wanted.has(node)) doomed.push(...pods);
      else doomed.push(...pods.slice(1));
    }
    for (const node of wanted) {
      if (byNode.has(node)) continue;
      const pod = podFromTemplate(template, ds, { generateName: `${String((ds.metadata as Obj).name)}-` });
      const meta = pod.metadata as Obj;
      meta.labels = {
        ...((meta.labels as Obj | undefined) ?? {}),
        [REVISION_HASH_LABEL]: hash,
        'pod-template-generation': String((ds.metadata as Obj).generation ?? 1),
      };
      const ps = pod.spec as Obj;
      ps.tolerations = tolerations;
      ps.affinity = {
        ...((ps.affinity as Obj | undefined) ?? {}),
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
          },
        },
      };
      ps.nodeName = node;
      const created = ctx.rest.create(podDef, e.ns, pod, { fieldManager: FIELD_MANAGER });
      recordEvent(ctx, COMPONENT, ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.name}`);
    }
    doomed.push(...rollingReplacements(spec, byNode, wanted, hash));
  }
  for (const p of doomed) {
    try {
      ctx.rest.delete(podDef, p.ns, p.name, { preconditions: { uid: String((p.obj.metadata as Obj).uid) } });
      recordEvent(ctx, COMPONENT, ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.name}`);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
  const pods = controlledBy(ctx, ds, '/pods').filter((x) => isActive(x.obj));
  if (update) pruneRevisions(ctx, all, new Set([update.name]), pods, Number(spec.revisionHistoryLimit ?? 10));
  return writeDaemonStatus(ctx, e, pods, wanted, hash);
}

/** Old-revision pods to replace now: up to maxUnavailable unavailable daemons at a time (OnDelete: none). */
function rollingReplacements(
  spec: Obj,
  byNode: Map<string, Entry[]>,
  wanted: Set<string>,
  hash: string,
): Entry[] {
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
  if (strategy.type === 'OnDelete') return [];
  const ru = isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const raw = ru.maxUnavailable ?? 1;
  const pct = /^(\d+)%$/.exec(String(raw));
  const maxUnavailable = Math.max(1, pct ? Math.floor((Number(pct[1]) * wanted.size) / 100) : Number(raw));
  let unavailable = [...wanted].filter((n) => !(byNode.get(n) ?? []).some((p) => isReady(p.obj))).length;
  const out: Entry[] = [];
  for (const n of wanted) {
    const pod = (byNode.get(n) ?? [])[0];
    if (!pod || ((pod.obj.metadata as Obj).labels as Obj | undefined)?.[REVISION_HASH_LABEL] === hash)
      continue;
    const ready = isReady(pod.obj);
    if (ready && unavailable >= maxUnavailable) continue;
    out.push(pod);
    if (ready) unavailable++;
  }
  return out;
}

function writeDaemonStatus(
  ctx: ControllerContext,
  e: Entry,
  pods: Entry[],
  wanted: Set<string>,
  hash: string,
): number | undefined {
  const minReady = Number((e.obj.spec as Obj).minReadySeconds ?? 0);
  const now = ctx.now();
  const onWanted = pods.filter((p) => wanted.has(String((p.obj.spec as Obj).nodeName)));
  let again: number | undefined;
  const available = onWanted.filter((p) => {
    const ms = msUntilAvailable(p.obj, minReady, now);
    if (ms !== undefined && ms > 0) again = Math.min(again ?? ms, ms);
    return ms === 0;
  }).length;
  const status: Obj = {
    currentNumberScheduled: new Set(onWanted.map((p) => (p.obj.spec as Obj).nodeName)).size,
    numberMisscheduled: pods.length - onWanted.length,
    desiredNumberScheduled: wanted.size,
    numberReady: onWanted.filter((p) => isReady(p.obj)).length,
    observedGeneration: (e.obj.metadata as Obj).generation,
    updatedNumberScheduled: onWanted.filter(
      (p) => ((p.obj.metadata as Obj).labels as Obj | undefined)?.[REVISION_HASH_LABEL] === hash,
    ).length,
    numberAvailable: available,
    numberUnavailable: Math.max(0, wanted.size - available),
  };
  for (const f of ['numberAvailable', 'numberUnavailable']) if (status[f] === 0) delete status[f];
  writeStatus(ctx, ctx.def('apps', 'daemonsets'), e, status);
  return again;
}
