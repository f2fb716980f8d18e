// Deployment controller: one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`), rolled out with
// RollingUpdate (maxSurge/maxUnavailable) or Recreate, revisions in `deployment.kubernetes.io/revision` (what
// `kubectl rollout history/undo` read), old ReplicaSets pruned to revisionHistoryLimit, and the status and
// conditions `kubectl rollout status` reads. Rollback is kubectl's own (it copies an old ReplicaSet's template).
import { StatusError } from '../../k8s/status.ts';
import { isObj, jsonEqual } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { objAt } from '../strategy/strategy.ts';
import { recordEvent } from './events.ts';
import {
  type Controller,
  type ControllerContext,
  controlledBy,
  controllerKey,
  controllerOf,
  FIELD_MANAGER,
  objectKey,
  ownKey,
  splitKey,
  timestamp,
  writeObject,
  writeStatus,
} from './framework.ts';
import { adoptOrphans, isTerminal } from './pods.ts';
import { RS } from './replicaset.ts';
import { podTemplateHash, TEMPLATE_HASH_LABEL } from './template-hash.ts';

const DEPLOY = 'apps/deployments';
const COMPONENT = 'deployment-controller';
export const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const DESIRED = 'deployment.kubernetes.io/desired-replicas';
const MAX = 'deployment.kubernetes.io/max-replicas';
/** Deployment annotations not copied to its ReplicaSets. */
const NOT_COPIED = new Set([
  REVISION,
  REVISION_HISTORY,
  DESIRED,
  MAX,
  'kubectl.kubernetes.io/last-applied-configuration',
]);

/** Pod events wake the Deployment owning the pod's ReplicaSet (Recreate waits for old pods to go). */
function deploymentOfPod(ctx: ControllerContext) {
  return (ev: { ns: string; obj: Obj; prev?: Obj }): string[] => {
    const out: string[] = [];
    for (const o of [ev.obj, ev.prev]) {
      const ref = controllerOf(o);
      if (ref?.kind !== 'ReplicaSet') continue;
      const rs = ctx.store.get(RS, ev.ns, String(ref.name));
      const owner = controllerOf(rs?.obj);
      if (owner?.kind === 'Deployment') out.push(objectKey(ev.ns, String(owner.name)));
    }
    return out;
  };
}

export function deploymentController(ctx: ControllerContext): Controller {
  return {
    name: 'deployment',
    watches: [
      { res: DEPLOY, keys: ownKey },
      { res: RS, keys: controllerKey('Deployment') },
      { res: '/pods', keys: deploymentOfPod(ctx) },
    ],
    reconcile(key) {
      const { ns, name } = splitKey(key);
      const e = ctx.store.get(DEPLOY, ns, name);
      if (!e) return undefined;
      if (!(e.obj.metadata as Obj).deletionTimestamp) adoptOrphans(ctx, e.obj, RS);
      return new Rollout(ctx, e).run();
    },
  };
}

const spec = (o: Obj) => o.spec as Obj;
const replicasOf = (rs: Entry) => Number(spec(rs.obj).replicas ?? 0);
const statusNum = (rs: Entry | undefined, f: string) => Number((rs?.obj.status as Obj | undefined)?.[f] ?? 0);
const revisionOf = (o: Obj) => Number(((o.metadata as Obj).annotations as Obj | undefined)?.[REVISION] ?? 0);
const created = (rs: Entry) => Date.parse(String((rs.obj.metadata as Obj).creationTimestamp ?? '')) || 0;

/** An int-or-percent of `total`: percentages round up for surge, down for unavailability. */
function intOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v ?? ''));
  if (!m) return 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** One reconcile of one Deployment (deployment_controller's syncDeployment). */
class Rollout {
  private readonly d: Obj;
  private readonly replicas: number;
  private readonly maxSurge: number;
  private readonly maxUnavailable: number;
  private newRS: Entry | undefined;
  private olds: Entry[];
  private progressed = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly e: Entry,
  ) {
    this.d = e.obj;
    this.replicas = Number(spec(this.d).replicas ?? 1);
    const strategy = isObj(spec(this.d).strategy) ? (spec(this.d).strategy as Obj) : {};
    const ru =
      strategy.type === 'Recreate' ? undefined : isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    this.maxSurge = ru ? intOrPercent(ru.maxSurge ?? '25%', this.replicas, true) : 0;
    let unavailable = ru ? intOrPercent(ru.maxUnavailable ?? '25%', this.replicas, false) : 0;
    if (ru && unavailable === 0 && this.maxSurge === 0) unavailable = 1;
    this.maxUnavailable = Math.min(unavailable, this.replicas);
    const all = controlledBy(ctx, this.d, RS).filter((rs) => !(rs.obj.metadata as Obj).deletionTimestamp);
    const template = spec(this.d).template;
    this.newRS = all
      .filter((rs) => sameTemplate(spec(rs.obj).template, template))
      .sort((a, b) => created(a) - created(b))[0];
    this.olds = all.filter((rs) => rs !== this.newRS).sort((a, b) => created(a) - created(b));
  }

  run(): number | undefined {
    const meta = this.d.metadata as Obj;
    if (!meta.deletionTimestamp) {
      if (spec(this.d).paused) this.scalePaused();
      else {
        this.ensureNewReplicaSet();
        if (spec(this.d).strategy && (spec(this.d).strategy as Obj).type === 'Recreate') this.recreate();
        else this.rollingUpdate();
        if (this.complete()) this.cleanup();
      }
    }
    return this.syncStatus();
  }

  private get rsDef() {
    return this.ctx.def('apps', 'replicasets');
  }

  // --- the new ReplicaSet and revisions ---

  private ensureNewReplicaSet(): void {
    const maxOld = Math.max(0, ...this.olds.map((rs) => revisionOf(rs.obj)));
    if (!this.newRS) {
      const initial = this.isRecreate() ? 0 : this.scaleUpTarget(0);
      this.newRS = this.createReplicaSet(maxOld + 1, initial);
    } else {
      const rs = structuredClone(this.newRS.obj);
      const ann = this.copiedAnnotations(rs);
      const rev = revisionOf(this.newRS.obj);
      if (rev <= maxOld) {
        // A rollback (or an edit back to an old template): the old ReplicaSet becomes the newest revision.
        ann[REVISION_HISTORY] = [ann[REVISION_HISTORY], String(rev)].filter(Boolean).join(',');
        ann[REVISION] = String(maxOld + 1);
      }
      this.newRS = writeObject(this.ctx, this.rsDef, this.newRS, rs);
    }
    const rev = String(revisionOf(this.newRS.obj));
    const dMeta = this.d.metadata as Obj;
    if ((dMeta.annotations as Obj | undefined)?.[REVISION] !== rev) {
      const next = structuredClone(this.d);
      (next.metadata as Obj).annotations = {
        ...((dMeta.annotations as Obj | undefined) ?? {}),
        [REVISION]: rev,
      };
      writeObject(this.ctx, this.ctx.def('apps', 'deployments'), this.e, next);
    }
  }

  /** The Deployment's annotations on a ReplicaSet (its own revision ones kept), set in place; returns them. */
  private copiedAnnotations(rs: Obj): Record<string, string> {
    const meta = rs.metadata as Obj;
    const own = (meta.annotations as Record<string, string> | undefined) ?? {};
    const ann: Record<string, string> = {};
    for (const [k, v] of Object.entries(own)) if (NOT_COPIED.has(k)) ann[k] = v;
    for (const [k, v] of Object.entries(((this.d.metadata as Obj).annotations as Obj | undefined) ?? {}))
      if (!NOT_COPIED.has(k)) ann[k] = String(v);
    meta.annotations = ann;
    return ann;
  }

  private createReplicaSet(revision: number, replicas: number): Entry {
    const dMeta = this.d.metadata as Obj;
    const template = structuredClone(spec(this.d).template as Obj);
    const hash = podTemplateHash(template, Number((this.d.status as Obj | undefined)?.collisionCount ?? 0));
    const tmeta = objAt(template, 'metadata');
    tmeta.labels = { ...((tmeta.labels as Obj | undefined) ?? {}), [TEMPLATE_HASH_LABEL]: hash };
    const selector = structuredClone(spec(this.d).selector as Obj);
    selector.matchLabels = {
      ...((selector.matchLabels as Obj | undefined) ?? {}),
      [TEMPLATE_HASH_LABEL]: hash,
    };
    const rs: Obj = {
      metadata: {
        name: `${String(dMeta.name)}-${hash}`,
        namespace: dMeta.namespace,
        labels: tmeta.labels,
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: dMeta.name,
            uid: dMeta.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas,
        minReadySeconds: spec(this.d).minReadySeconds ?? 0,
        selector,
        template,
      },
    };
    const ann = this.copiedAnnotations(rs);
    ann[REVISION] = String(revision);
    ann[DESIRED] = String(this.replicas);
    ann[MAX] = String(this.replicas + this.maxSurge);
    let entry: Entry;
    try {
      entry = this.ctx.rest.create(this.rsDef, String(dMeta.namespace), rs, { fieldManager: FIELD_MANAGER });
    } catch (err) {
      // A ReplicaSet of another template holds the name: a hash collision. Count it (the next hash differs) and retry.
      if (err instanceof StatusError && err.code === 409) {
        const status = { ...((this.d.status as Obj | undefined) ?? {}) };
        status.collisionCount = Number(status.collisionCount ?? 0) + 1;
        writeStatus(this.ctx, this.ctx.def('apps', 'deployments'), this.e, status);
      }
      throw err;
    }
    this.progressed = true;
    if (replicas > 0)
      recordEvent(
        this.ctx,
        COMPONENT,
        this.d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${entry.name} to ${replicas} from 0`,
      );
    return entry;
  }

  // --- scaling ---

  private isRecreate(): boolean {
    return (spec(this.d).strategy as Obj | undefined)?.type === 'Recreate';
  }

  /** The new ReplicaSet's size under RollingUpdate given its current size (bounded by replicas + maxSurge). */
  private scaleUpTarget(current: number): number {
    if (current >= this.replicas) return this.replicas;
    const others = this.olds.reduce((n, rs) => n + replicasOf(rs), 0);
    const room = this.replicas + this.maxSurge - others - current;
    return current + Math.max(0, Math.min(room, this.replicas - current));
  }

  private scale(rs: Entry, to: number): Entry {
    const from = replicasOf(rs);
    const next = structuredClone(rs.obj);
    spec(next).replicas = to;
    const ann = objAt(next.metadata as Obj, 'annotations');
    ann[DESIRED] = String(this.replicas);
    ann[MAX] = String(this.replicas + this.maxSurge);
    const written = writeObject(this.ctx, this.rsDef, rs, next);
    if (from !== to) {
      this.progressed = true;
      recordEvent(
        this.ctx,
        COMPONENT,
        this.d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.name} to ${to} from ${from}`,
      );
    }
    return written;
  }

  private rollingUpdate(): void {
    const newRS = this.newRS as Entry;
    const target = this.scaleUpTarget(replicasOf(newRS));
    if (target !== replicasOf(newRS)) {
      this.newRS = this.scale(newRS, target);
      return;
    }
    this.scaleDownOld();
  }

  /** reconcileOldReplicaSets: never below replicas - maxUnavailable available pods. */
  private scaleDownOld(): void {
    const newRS = this.newRS as Entry;
    const oldCount = this.olds.reduce((n, rs) => n + replicasOf(rs), 0);
    if (oldCount === 0) return;
    const all = oldCount + replicasOf(newRS);
    const minAvailable = this.replicas - this.maxUnavailable;
    const newUnavailable = replicasOf(newRS) - statusNum(newRS, 'availableReplicas');
    const maxScaledDown = all - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return;
    let scaled = 0;
    // Unhealthy old pods go first: removing them costs no availability.
    this.olds = this.olds.map((rs) => {
      const unhealthy = replicasOf(rs) - statusNum(rs, 'availableReplicas');
      if (unhealthy <= 0 || scaled >= maxScaledDown) return rs;
      const n = Math.min(maxScaledDown - scaled, unhealthy);
      scaled += n;
      return this.scale(rs, replicasOf(rs) - n);
    });
    const available = [newRS, ...this.olds].reduce((n, rs) => n + statusNum(rs, 'availableReplicas'), 0);
    const budget = Math.min(available - minAvailable, maxScaledDown - scaled);
    let done = 0;
    this.olds = this.olds.map((rs) => {
      if (done >= budget || replicasOf(rs) === 0) return rs;
      const n = Math.min(replicasOf(rs), budget - done);
      done += n;
      return this.scale(rs, replicasOf(rs) - n);
    });
  }

  /** Recreate: old pods, terminating ones included, are all gone before the new ReplicaSet scales up. */
  private recreate(): void {
    this.olds = this.olds.map((rs) => (replicasOf(rs) > 0 ? this.scale(rs, 0) : rs));
    const oldPodsLeft = this.olds.some((rs) =>
      controlledBy(this.ctx, rs.obj, '/pods').some((p) => !isTerminal(p.obj)),
    );
    if (oldPodsLeft) return;
    const newRS = this.newRS as Entry;
    if (replicasOf(newRS) !== this.replicas) this.newRS = this.scale(newRS, this.replicas);
  }

  /** Paused: no new ReplicaSet, but a scale of the Deployment still reaches its only active ReplicaSet. */
  private scalePaused(): void {
    const active = [this.newRS, ...this.olds].filter((rs): rs is Entry => !!rs && replicasOf(rs) > 0);
    const only = active.length === 1 ? active[0] : active.length === 0 ? this.newRS : undefined;
    if (only && replicasOf(only) !== this.replicas) this.scale(only, this.replicas);
  }

  /** Old ReplicaSets without pods beyond revisionHistoryLimit, oldest revision first. */
  private cleanup(): void {
    const limit = Number(spec(this.d).revisionHistoryLimit ?? 10);
    const idle = this.olds
      .filter((rs) => replicasOf(rs) === 0 && statusNum(rs, 'replicas') === 0)
      .sort((a, b) => revisionOf(a.obj) - revisionOf(b.obj));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
      try {
        this.ctx.rest.delete(this.rsDef, rs.ns, rs.name, {
          preconditions: { uid: String((rs.obj.metadata as Obj).uid) },
        });
      } catch {
        // already gone
      }
    }
  }

  // --- status ---

  private complete(): boolean {
    const all = this.newRS ? [this.newRS, ...this.olds] : this.olds;
    const total = all.reduce((n, rs) => n + statusNum(rs, 'replicas'), 0);
    return (
      !!this.newRS &&
      statusNum(this.newRS, 'replicas') === this.replicas &&
      statusNum(this.newRS, 'availableReplicas') === this.replicas &&
      total === this.replicas
    );
  }

  /** Writes the status; returns when to look again (the progress deadline). */
  private syncStatus(): number | undefined {
    const fresh = this.ctx.store.get(DEPLOY, this.e.ns, this.e.name);
    if (!fresh) return undefined;
    const all = (this.newRS ? [this.newRS, ...this.olds] : this.olds).map(
      (rs) => this.ctx.store.get(RS, rs.ns, rs.name) ?? rs,
    );
    const newRS = this.newRS ? this.ctx.store.get(RS, this.newRS.ns, this.newRS.name) : undefined;
    const sum = (f: string) => all.reduce((n, rs) => n + statusNum(rs, f), 0);
    const old = isObj(fresh.obj.status) ? fresh.obj.status : {};
    const status: Obj = {
      observedGeneration: (fresh.obj.metadata as Obj).generation,
      replicas: sum('replicas'),
      updatedReplicas: statusNum(newRS, 'replicas'),
      readyReplicas: sum('readyReplicas'),
      availableReplicas: sum('availableReplicas'),
      unavailableReplicas: Math.max(0, this.replicas - sum('availableReplicas')),
    };
    for (const f of ['readyReplicas', 'availableReplicas', 'unavailableReplicas'])
      if (status[f] === 0) delete status[f];
    if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
    const moved = ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'].some(
      (f) => (old[f] ?? 0) !== (status[f] ?? 0),
    );
    const now = this.ctx.now();
    const conds = new Conditions(
      Array.isArray(old.conditions) ? (old.conditions as Obj[]) : [],
      timestamp(now),
    );
    const availableNow = sum('availableReplicas') >= this.replicas - this.maxUnavailable;
    conds.set(
      'Available',
      availableNow ? 'True' : 'False',
      availableNow ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      availableNow
        ? 'Deployment has minimum availability.'
        : 'Deployment does not have minimum availability.',
    );
    const rsName = newRS ? `ReplicaSet "${newRS.name}"` : 'ReplicaSet';
    const deadline = Number(spec(this.d).progressDeadlineSeconds ?? 600);
    let again: number | undefined;
    const progressing = conds.get('Progressing');
    if (spec(this.d).paused) conds.set('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused');
    else if (progressing?.reason === 'DeploymentPaused')
      conds.set('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed');
    else if (this.complete())
      conds.set('Progressing', 'True', 'NewReplicaSetAvailable', `${rsName} has successfully progressed.`);
    else if (this.progressed || moved || !progressing)
      conds.set('Progressing', 'True', 'ReplicaSetUpdated', `${rsName} is progressing.`, true);
    else if (progressing.status === 'True') {
      const since = Date.parse(String(progressing.lastUpdateTime ?? '')) || now;
      const left = since + deadline * 1000 - now;
      if (left <= 0)
        conds.set('Progressing', 'False', 'ProgressDeadlineExceeded', `${rsName} has timed out progressing.`);
      else again = left;
    }
    if (
      !spec(this.d).paused &&
      !this.complete() &&
      again === undefined &&
      conds.get('Progressing')?.status === 'True'
    )
      again = deadline * 1000;
    status.conditions = conds.list;
    const timedOut = (c: Obj | undefined) => c?.reason === 'ProgressDeadlineExceeded';
    if (timedOut(conds.get('Progressing')) && !timedOut(progressing))
      recordEvent(
        this.ctx,
        COMPONENT,
        this.d,
        'Warning',
        'ProgressDeadlineExceeded',
        `${rsName} has timed out progressing.`,
      );
    writeStatus(this.ctx, this.ctx.def('apps', 'deployments'), fresh, status);
    return again;
  }
}

/** Status conditions with Kubernetes' timestamps: lastTransitionTime moves only when the status flips. */
class Conditions {
  constructor(
    readonly list: Obj[],
    private readonly now: string,
  ) {
    this.list = list.map((c) => ({ ...c }));
  }

  get(type: string): Obj | undefined {
    return this.list.find((c) => c.type === type);
  }

  set(type: string, status: string, reason: string, message: string, touch = false): void {
    const c = this.get(type);
    if (!c) {
      this.list.push({
        type,
        status,
        lastUpdateTime: this.now,
        lastTransitionTime: this.now,
        reason,
        message,
      });
      return;
    }
    if (c.status !== status) c.lastTransitionTime = this.now;
    if (touch || c.status !== status || c.reason !== reason || c.message !== message)
      c.lastUpdateTime = this.now;
    Object.assign(c, { status, reason, message });
  }
}

/** Whether a ReplicaSet's template is the Deployment's, ignoring the pod-template-hash label. */
function sameTemplate(rsTemplate: unknown, template: unknown): boolean {
  if (!isObj(rsTemplate)) return false;
  const t = structuredClone(rsTemplate);
  const labels = (t.metadata as Obj | undefined)?.labels as Obj | undefined;
  if (labels) {
    delete labels[TEMPLATE_HASH_LABEL];
    if (Object.keys(labels).length === 0 && !((template as Obj).metadata as Obj | undefined)?.labels)
      delete (t.metadata as Obj).labels;
  }
  return jsonEqual(t, template);
}
