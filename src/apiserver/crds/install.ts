// Installs the KubeSphere CRDs that are missing and waits until each one is served. Existing CRDs are left alone:
// on a cluster where KubeSphere itself installed them, its definitions win.
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeRest } from '../cluster/index.ts';
import { type CrdDefinition, KUBESPHERE_CRDS } from './definitions.ts';

const ESTABLISH_TIMEOUT_MS = 20_000;

async function servedPath(rest: KubeRest, crd: CrdDefinition): Promise<boolean> {
  const v = crd.spec.versions[0].name;
  try {
    await rest.get(`/apis/${crd.spec.group}/${v}/${crd.spec.names.plural}?limit=1`);
    return true;
  } catch {
    return false;
  }
}

export async function installCrds(rest: KubeRest, logger: Logger, crds = KUBESPHERE_CRDS): Promise<string[]> {
  const created: string[] = [];
  for (const crd of crds) {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
    try {
      await rest.get(path);
      continue;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await rest.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      created.push(crd.metadata.name);
    } catch (err) {
      // Another replica created it first.
      if (!isConflict(err)) throw err;
    }
  }
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (const crd of crds) {
    while (!(await servedPath(rest, crd))) {
      if (Date.now() > deadline)
        throw new Error(`CRD ${crd.metadata.name} is not served after ${ESTABLISH_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (created.length > 0) logger.info({ crds: created }, 'installed KubeSphere CRDs');
  return created;
}
