// StatefulSet controller: pods with stable names `<sts>-0..n-1` (hostname and subdomain set, PVCs from
// volumeClaimTemplates `<claim>-<sts>-<i>`), created in order and removed from the highest ordinal with OrderedReady
// (each waits for the previous to be Running and Ready) or all at once with Parallel; ControllerRevisions give
// currentRevision/updateRevision; RollingUpdate replaces pods at or above the partition from the highest ordinal,
// one at a time; OnDelete leaves running pods alone.
import { StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { recordEvent } from './events.ts';
import {
  type Controller,
  type ControllerContext,
  controlledBy,
  controllerKey,
  FIELD_MANAGER,
  ownKey,
  splitKey,
  writeStatus,
} from './framework.ts';
import { isActive, isReady, isTerminal, msUntilAvailable, podFromTemplate } from './pods.ts';
import { currentRevision, pruneRevisions, REVISION_HASH_LABEL, revisionHash } from './revisions.ts';

const STS = 'apps/statefulsets';
const COMPONENT = 'statefulset-controller';

export const statefulSetController: Controller = {
  name: 'statefulset',
  watches: [
    { res: STS, keys: ownKey },
    { res: '/pods', keys: controllerKey('StatefulSet') },
  ],
  reconcile(key, ctx) {
    const { ns, name } = splitKey(key);
    const e = ctx.store.get(STS, ns, name);
    if (!e) return undefined;
    return syncStatefulSet(ctx, e);
  },
};

const ordinalOf = (sts: string, pod: string): number => {
  const m = new RegExp(`^${sts.replace(/[.]/g, '\\.')}-(\\d+)$`).exec(pod);
  return m ? Number(m[1]) : -1;
};
const hashOf = (p: Entry) =>
  String(((p.obj.metadata as Obj).labels as Obj | undefined)?.[REVISION_HASH_LABEL] ?? '');
const runningAndReady = (p: Entry | undefined) =>
  !!p && (p.obj.status as Obj | undefined)?.phase === 'Running' && isReady(p.obj);

function syncStatefulSet(ctx: ControllerContext, e: Entry): number | undefined {
  const sts = e.obj;
  const meta = sts.metadata as Obj;
  const spec = sts.spec as Obj;
  const name = String(meta.name);
  const replicas = Number(spec.replicas ?? 1);
  const parallel = spec.podManagementPolicy === 'Parallel';
  const { update, all } = currentRevision(ctx, sts);
  const updateHash = revisionHash(update);
  const oldStatus = isObj(sts.status) ? sts.status : {};
  const currentName = String(oldStatus.currentRevision ?? update.name);
  const current = all.find((r) => r.name === currentName) ?? update;
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
  const onDelete = strategy.type === 'OnDelete';
  const partition = Number((strategy.rollingUpdate as Obj | undefined)?.partition ?? 0);
  const podDef = ctx.def('', 'pods');

  const owned = controlledBy(ctx, sts, '/pods');
  const byOrdinal = new Map<number, Entry>();
  for (const p of owned) byOrdinal.set(ordinalOf(name, p.name), p);
  const remove = (p: Entry, why: string) => {
    try {
      ctx.rest.delete(podDef, p.ns, p.name, { preconditions: { uid: String((p.obj.metadata as Obj).uid) } });
      recordEvent(
        ctx,
        COMPONENT,
        sts,
        'Normal',
        'SuccessfulDelete',
        `${why} Pod ${p.name} in StatefulSet ${name} successful`,
      );
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  };

  if (!meta.deletionTimestamp) {
    // Failed or finished pods are recreated, as the real controller does.
    for (const p of owned) if (isTerminal(p.obj)) remove(p, 'delete');
    let blocked = false;
    for (let i = 0; i < replicas && !blocked; i++) {
      const p = byOrdinal.get(i);
      if (p && isTerminal(p.obj))
        blocked = !parallel; // just deleted: recreated when its deletion is seen
      else if (!p) {
        createPod(ctx, sts, i, onDelete || i < partition ? current : update);
        blocked = !parallel;
      } else if (!parallel && !runningAndReady(p)) blocked = true;
    }
    // Scale down from the highest ordinal; OrderedReady waits until every remaining pod is ready.
    const excess = owned
      .filter((p) => ordinalOf(name, p.name) >= replicas || ordinalOf(name, p.name) < 0)
      .filter((p) => isActive(p.obj))
      .sort((a, b) => ordinalOf(name, b.name) - ordinalOf(name, a.name));
    const allReady = [...byOrdinal].every(([i, p]) => i >= replicas || runningAndReady(p));
    for (const p of parallel ? excess : excess.slice(0, allReady ? 1 : 0)) remove(p, 'delete');
    // Rolling update: the highest ordinal at or above the partition still on an old revision, once all are ready.
    if (!onDelete && excess.length === 0 && allReady) {
      for (let i = replicas - 1; i >= partition; i--) {
        const p = byOrdinal.get(i);
        if (p && isActive(p.obj) && hashOf(p) !== updateHash) {
          remove(p, 'delete');
          break;
        }
      }
    }
  }

  const pods = controlledBy(ctx, sts, '/pods').filter((p) => isActive(p.obj));
  const keep = new Set([update.name, current.name]);
  pruneRevisions(ctx, all, keep, pods, Number(spec.revisionHistoryLimit ?? 10));
  return writeStatefulStatus(ctx, e, pods, update, current);
}

function createPod(ctx: ControllerContext, sts: Obj, i: number, revision: Entry): void {
  const meta = sts.metadata as Obj;
  const spec = sts.spec as Obj;
  const name = `${String(meta.name)}-${i}`;
  const template = (revision.obj.data as Obj)?.spec
    ? (((revision.obj.data as Obj).spec as Obj).template as Obj)
    : (spec.template as Obj);
  const pod = podFromTemplate(template, sts, { name });
  const pmeta = pod.metadata as Obj;
  pmeta.labels = {
    ...((pmeta.labels as Obj | undefined) ?? {}),
    [REVISION_HASH_LABEL]: revisionHash(revision),
    'statefulset.kubernetes.io/pod-name': name,
    'apps.kubernetes.io/pod-index': String(i),
  };
  const ps = pod.spec as Obj;
  ps.hostname = name;
  if (spec.serviceName) ps.subdomain = spec.serviceName;
  const claims = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.filter(isObj) : [];
  const volumes = Array.isArray(ps.volumes) ? (ps.volumes as Obj[]) : [];
  for (const c of claims) {
    const claimName = `${String((c.metadata as Obj | undefined)?.name)}-${name}`;
    ensureClaim(ctx, sts, c, claimName);
    const volName = String((c.metadata as Obj | undefined)?.name);
    if (!volumes.some((v) => v.name === volName))
      volumes.push({ name: volName, persistentVolumeClaim: { claimName } });
  }
  if (volumes.length > 0) ps.volumes = volumes;
  ctx.rest.create(ctx.def('', 'pods'), String(meta.namespace), pod, { fieldManager: FIELD_MANAGER });
  recordEvent(
    ctx,
    COMPONENT,
    sts,
    'Normal',
    'SuccessfulCreate',
    `create Pod ${name} in StatefulSet ${String(meta.name)} successful`,
  );
}

/** A volumeClaimTemplate's PVC, created once and kept (the StatefulSet's default retention policy). */
function ensureClaim(ctx: ControllerContext, sts: Obj, template: Obj, claimName: string): void {
  const ns = String((sts.metadata as Obj).namespace);
  if (ctx.store.get('/persistentvolumeclaims', ns, claimName)) return;
  const tmeta = isObj(template.metadata) ? template.metadata : {};
  const labels = {
    ...((((sts.spec as Obj).selector as Obj | undefined)?.matchLabels as Obj | undefined) ?? {}),
    ...((tmeta.labels as Obj | undefined) ?? {}),
  };
  ctx.rest.create(
    ctx.def('', 'persistentvolumeclaims'),
    ns,
    { metadata: { name: claimName, labels }, spec: structuredClone(template.spec ?? {}) },
    { fieldManager: FIELD_MANAGER },
  );
}

function writeStatefulStatus(
  ctx: ControllerContext,
  e: Entry,
  pods: Entry[],
  update: Entry,
  current: Entry,
): number | undefined {
  const spec = e.obj.spec as Obj;
  const replicas = Number(spec.replicas ?? 1);
  const minReady = Number(spec.minReadySeconds ?? 0);
  const now = ctx.now();
  let again: number | undefined;
  const available = pods.filter((p) => {
    const ms = msUntilAvailable(p.obj, minReady, now);
    if (ms !== undefined && ms > 0) again = Math.min(again ?? ms, ms);
    return ms === 0;
  }).length;
  const updated = pods.filter((p) => hashOf(p) === revisionHash(update)).length;
  const done = updated === replicas && pods.length === replicas && pods.every((p) => isReady(p.obj));
  const currentRev = done ? update : current;
  const old = isObj(e.obj.status) ? e.obj.status : {};
  const status: Obj = {
    observedGeneration: (e.obj.metadata as Obj).generation,
    replicas: pods.length,
    readyReplicas: pods.filter((p) => isReady(p.obj)).length,
    currentReplicas: pods.filter((p) => hashOf(p) === revisionHash(currentRev)).length,
    updatedReplicas: updated,
    availableReplicas: available,
    currentRevision: currentRev.name,
    updateRevision: update.name,
    collisionCount: Number(old.collisionCount ?? 0),
  };
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas'])
    if (status[f] === 0) delete status[f];
  writeStatus(ctx, ctx.def('apps', 'statefulsets'), e, status);
  return again;
}
