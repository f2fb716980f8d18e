// ControllerRevisions of StatefulSets and DaemonSets: one per distinct pod template, named `<owner>-<hash>`,
// numbered by `revision` (a template seen before moves to the newest number, as a rollback does), and pruned to the
// owner's revisionHistoryLimit while no live pod still runs them.
import { StatusError } from '../../k8s/status.ts';
import { jsonEqual } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { type ControllerContext, controlledBy, FIELD_MANAGER, writeObject } from './framework.ts';
import { controllerRef } from './pods.ts';
import { podTemplateHash } from './template-hash.ts';

export const REVISIONS = 'apps/controllerrevisions';
export const REVISION_HASH_LABEL = 'controller-revision-hash';

/** What a revision records: the template, as the real controllers' `{"spec":{"template":...}}` patch. */
const dataOf = (owner: Obj) => ({ spec: { template: (owner.spec as Obj).template } });

/** The revision of the owner's current template (created or renumbered as needed), and every owned revision. */
export function currentRevision(ctx: ControllerContext, owner: Obj): { update: Entry; all: Entry[] } {
  const def = ctx.def('apps', 'controllerrevisions');
  const all = controlledBy(ctx, owner, REVISIONS);
  const data = dataOf(owner);
  const max = Math.max(0, ...all.map((r) => Number(r.obj.revision ?? 0)));
  const same = all.find((r) => jsonEqual(r.obj.data, data));
  if (same) {
    if (Number(same.obj.revision) === max) return { update: same, all };
    const moved = writeObject(ctx, def, same, { ...same.obj, revision: max + 1 });
    return { update: moved, all: all.map((r) => (r === same ? moved : r)) };
  }
  const meta = owner.metadata as Obj;
  const hash = podTemplateHash(data, Number((owner.status as Obj | undefined)?.collisionCount ?? 0));
  const labels = { ...(((data.spec.template as Obj)?.metadata as Obj | undefined)?.labels ?? {}) } as Obj;
  labels[REVISION_HASH_LABEL] = hash;
  const created = ctx.rest.create(
    def,
    String(meta.namespace),
    {
      metadata: { name: `${String(meta.name)}-${hash}`, labels, ownerReferences: [controllerRef(owner)] },
      data,
      revision: max + 1,
    },
    { fieldManager: FIELD_MANAGER },
  );
  return { update: created, all: [...all, created] };
}

/** Deletes the oldest revisions beyond `limit` that are neither `keep` nor run by a pod. */
export function pruneRevisions(
  ctx: ControllerContext,
  all: Entry[],
  keep: Set<string>,
  pods: Entry[],
  limit: number,
) {
  const live = new Set(
    pods.map((p) => String(((p.obj.metadata as Obj).labels as Obj | undefined)?.[REVISION_HASH_LABEL])),
  );
  const spare = all
    .filter(
      (r) =>
        !keep.has(r.name) && !live.has(String(((r.obj.metadata as Obj).labels as Obj)[REVISION_HASH_LABEL])),
    )
    .sort((a, b) => Number(a.obj.revision) - Number(b.obj.revision));
  for (const r of spare.slice(0, Math.max(0, spare.length - limit))) {
    try {
      ctx.rest.delete(ctx.def('apps', 'controllerrevisions'), r.ns, r.name);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}

export const revisionHash = (r: Entry): string =>
  String(((r.obj.metadata as Obj).labels as Obj)[REVISION_HASH_LABEL]);
