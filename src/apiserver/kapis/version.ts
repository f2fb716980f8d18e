// GET /version and the deprecated GET /kapis/version: KubeSphere's version document with this project's version,
// plus top-level major/minor copied from the orchestrator so kubectl pointed at kapiserver picks a matching client.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ClusterConnection } from '../cluster/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export interface VersionDocument {
  gitVersion: string;
  gitMajor: string;
  gitMinor: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
  kubernetes?: Record<string, unknown>;
  major?: string;
  minor?: string;
}

const START = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
/** Set by the image build (deploy/Dockerfile GIT_COMMIT). */
const COMMIT = process.env.KAPISERVER_GIT_COMMIT || 'unknown';

export function versionDocument(cluster: ClusterConnection): VersionDocument {
  const [major, minor] = pkg.version.split('.');
  const doc: VersionDocument = {
    gitVersion: `v${pkg.version}`,
    gitMajor: major,
    gitMinor: minor,
    gitCommit: COMMIT,
    gitTreeState: COMMIT === 'unknown' ? 'unknown' : 'clean',
    // Empty when the image was built without the argument.
    buildDate: process.env.KAPISERVER_BUILD_DATE || START,
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc', // production runs the JavaScript tsc compiled (npm run build)
    platform: `${process.platform}/${process.arch}`,
  };
  const k8s = cluster.kubernetesVersion;
  if (k8s) {
    doc.kubernetes = k8s;
    if (typeof k8s.major === 'string') doc.major = k8s.major;
    if (typeof k8s.minor === 'string') doc.minor = k8s.minor;
  }
  return doc;
}

export function registerVersionRoutes(app: FastifyInstance, cluster: ClusterConnection): void {
  const handler = async () => versionDocument(cluster);
  app.get('/version', handler);
  app.get('/kapis/version', handler);
  app.get('/kapi/version', handler);
}
