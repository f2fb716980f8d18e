// Per-kind behaviour of built-in types: defaults applied on write (as the Kubernetes API server's defaulters
// and strategies do) and the basic validation real clients trip over.
import type { StatusCause } from '../k8s/status.ts';
import type { ResourceDef } from './resources.ts';
import type { Obj } from './store.ts';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (parent: Obj, key: string): Obj => {
  if (!isObj(parent[key])) parent[key] = {};
  return parent[key] as Obj;
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RBAC and a few other kinds accept any path-segment-safe name. */
const PATH_SEGMENT = /^[^/%]+$/;

export function validateName(d: ResourceDef, name: string): string | undefined {
  if (d.group === 'rbac.authorization.k8s.io') {
    return PATH_SEGMENT.test(name) && name !== '.' && name !== '..'
      ? undefined
      : 'may not contain "/" or "%"';
  }
  const label = d.resource === 'namespaces' || d.resource === 'services';
  if (label) {
    return name.length <= 63 && DNS_LABEL.test(name)
      ? undefined
      : `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
  }
  return name.length <= 253 && DNS_SUBDOMAIN.test(name)
    ? undefined
    : `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
}

function defaultPodSpec(spec: Obj): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  spec.priority ??= 0;
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObj(c)) continue;
      c.terminationMessagePath ??= '/dev/termination-log';
      c.terminationMessagePolicy ??= 'File';
      const img = String(c.image ?? '');
      const tag = /:([^/:@]+)$/.exec(img)?.[1];
      c.imagePullPolicy ??= !img.includes('@') && (!tag || tag === 'latest') ? 'Always' : 'IfNotPresent';
      c.resources ??= {};
      if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) p.protocol ??= 'TCP';
    }
  }
}

function validatePodSpec(spec: unknown, path: string, causes: StatusCause[]): void {
  if (!isObj(spec)) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: path });
    return;
  }
  const cs = spec.containers;
  if (!Array.isArray(cs) || cs.length === 0) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${path}.containers` });
    return;
  }
  cs.forEach((c, i) => {
    if (!isObj(c) || typeof c.name !== 'string' || c.name === '')
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${path}.containers[${i}].name`,
      });
    if (!isObj(c) || typeof c.image !== 'string' || c.image === '')
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${path}.containers[${i}].image`,
      });
  });
}

function defaultTemplate(spec: Obj): void {
  const tpl = obj(spec, 'template');
  obj(tpl, 'metadata');
  defaultPodSpec(obj(tpl, 'spec'));
}

function labelsMatch(selector: unknown, labels: unknown): boolean {
  if (!isObj(selector)) return false;
  const ml = isObj(selector.matchLabels) ? selector.matchLabels : {};
  const l = isObj(labels) ? labels : {};
  return Object.entries(ml).every(([k, v]) => l[k] === v);
}

function validateWorkload(o: Obj, causes: StatusCause[]): void {
  const spec = isObj(o.spec) ? o.spec : {};
  const tpl = isObj(spec.template) ? spec.template : {};
  if (!isObj(spec.selector)) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  } else if (!labelsMatch(spec.selector, (tpl.metadata as Obj | undefined)?.labels)) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: map[string]string(nil): `selector` does not match template `labels`',
      field: 'spec.template.metadata.labels',
    });
  }
  validatePodSpec(tpl.spec, 'spec.template.spec', causes);
}

let nextClusterIp = 1;

/** Applies creation-time defaults for a built-in kind (mutates `o`). */
export function defaultOnCreate(d: ResourceDef, o: Obj, usedClusterIps: () => Set<string>): void {
  const meta = obj(o, 'metadata');
  switch (d.kind) {
    case 'Namespace': {
      const labels = obj(meta, 'labels');
      labels['kubernetes.io/metadata.name'] = String(meta.name);
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
      break;
    }
    case 'Pod': {
      const spec = obj(o, 'spec');
      defaultPodSpec(spec);
      spec.serviceAccountName ??= 'default';
      spec.serviceAccount ??= spec.serviceAccountName;
      spec.tolerations ??= [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ];
      o.status = { phase: 'Pending', qosClass: 'BestEffort' };
      break;
    }
    case 'Service': {
      const spec = obj(o, 'spec');
      spec.type ??= 'ClusterIP';
      spec.sessionAffinity ??= 'None';
      if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
        const used = usedClusterIps();
        let ip = '';
        do {
          const n = nextClusterIp++;
          ip = `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
        } while (used.has(ip));
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
      }
      if (spec.type !== 'ExternalName') {
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
        spec.internalTrafficPolicy ??= 'Cluster';
      }
      if (Array.isArray(spec.ports)) {
        spec.ports.forEach((p, i) => {
          if (!isObj(p)) return;
          p.protocol ??= 'TCP';
          p.targetPort ??= p.port;
          if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && p.nodePort === undefined)
            p.nodePort = 30000 + ((Date.now() + i) % 2767);
        });
      }
      o.status ??= { loadBalancer: {} };
      break;
    }
    case 'Secret':
      o.type ??= 'Opaque';
      break;
    case 'ServiceAccount':
      break;
    case 'PersistentVolumeClaim': {
      const spec = obj(o, 'spec');
      spec.volumeMode ??= 'Filesystem';
      o.status = { phase: 'Pending' };
      break;
    }
    case 'Deployment': {
      const spec = obj(o, 'spec');
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
      defaultTemplate(spec);
      o.status = {};
      break;
    }
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet': {
      const spec = obj(o, 'spec');
      if (d.kind !== 'DaemonSet') spec.replicas ??= 1;
      if (d.kind === 'StatefulSet') {
        spec.podManagementPolicy ??= 'OrderedReady';
        spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
        spec.revisionHistoryLimit ??= 10;
      }
      if (d.kind === 'DaemonSet') {
        spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
        spec.revisionHistoryLimit ??= 10;
      }
      defaultTemplate(spec);
      o.status =
        d.kind === 'DaemonSet'
          ? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }
          : { replicas: 0 };
      break;
    }
    case 'Job': {
      const spec = obj(o, 'spec');
      spec.parallelism ??= 1;
      spec.completions ??= 1;
      spec.backoffLimit ??= 6;
      spec.completionMode ??= 'NonIndexed';
      spec.suspend ??= false;
      const tpl = obj(spec, 'template');
      const tspec = obj(tpl, 'spec');
      tspec.restartPolicy ??= 'Never';
      defaultPodSpec(tspec);
      o.status = {};
      break;
    }
    case 'CronJob': {
      const spec = obj(o, 'spec');
      spec.concurrencyPolicy ??= 'Allow';
      spec.suspend ??= false;
      spec.successfulJobsHistoryLimit ??= 3;
      spec.failedJobsHistoryLimit ??= 1;
      const jt = obj(spec, 'jobTemplate');
      const jspec = obj(jt, 'spec');
      const tspec = obj(obj(jspec, 'template'), 'spec');
      tspec.restartPolicy ??= 'OnFailure';
      defaultPodSpec(tspec);
      o.status = {};
      break;
    }
  }
}

/** Defaults that apply on every write (create and update). */
export function defaultOnWrite(d: ResourceDef, o: Obj): void {
  if (d.kind === 'Secret' && isObj(o.stringData)) {
    // stringData is write-only: fold it into base64 data (it wins over data for the same key).
    const data = obj(o, 'data');
    for (const [k, v] of Object.entries(o.stringData))
      data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    delete o.stringData;
  }
}

/** Basic validation; returns 422 causes. */
export function validateBuiltin(d: ResourceDef, o: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  switch (d.kind) {
    case 'Pod':
      validatePodSpec(o.spec, 'spec', causes);
      break;
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
      validateWorkload(o, causes);
      if (
        isObj(o.spec) &&
        o.spec.replicas !== undefined &&
        (!Number.isInteger(o.spec.replicas) || (o.spec.replicas as number) < 0)
      )
        causes.push({
          reason: 'FieldValueInvalid',
          message: 'Invalid value: must be greater than or equal to 0',
          field: 'spec.replicas',
        });
      break;
    case 'Job':
      validatePodSpec(
        isObj(o.spec) && isObj(o.spec.template) ? o.spec.template.spec : undefined,
        'spec.template.spec',
        causes,
      );
      break;
    case 'CronJob': {
      const spec = isObj(o.spec) ? o.spec : {};
      if (typeof spec.schedule !== 'string' || spec.schedule.trim() === '')
        causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedule' });
      break;
    }
    case 'ConfigMap':
    case 'Secret': {
      for (const field of ['data', 'binaryData']) {
        const m = o[field];
        if (m === undefined || m === null) continue;
        if (!isObj(m)) {
          causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: must be a map', field });
          continue;
        }
        for (const [k, v] of Object.entries(m)) {
          if (!/^[-._a-zA-Z0-9]+$/.test(k))
            causes.push({
              reason: 'FieldValueInvalid',
              message: `Invalid value: "${k}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
              field: `${field}[${k}]`,
            });
          if (typeof v !== 'string')
            causes.push({
              reason: 'FieldValueInvalid',
              message: 'Invalid value: must be a string',
              field: `${field}[${k}]`,
            });
          else if ((d.kind === 'Secret' || field === 'binaryData') && !/^[A-Za-z0-9+/]*={0,2}$/.test(v))
            causes.push({
              reason: 'FieldValueInvalid',
              message: 'Invalid value: illegal base64 data',
              field: `${field}[${k}]`,
            });
        }
      }
      break;
    }
    case 'RoleBinding':
    case 'ClusterRoleBinding': {
      const ref = o.roleRef;
      if (!isObj(ref) || typeof ref.name !== 'string' || typeof ref.kind !== 'string')
        causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'roleRef' });
      break;
    }
    case 'Service': {
      const spec = isObj(o.spec) ? o.spec : {};
      const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
      if (spec.type !== undefined && !types.includes(String(spec.type)))
        causes.push({
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${spec.type}": supported values: "${types.join('", "')}"`,
          field: 'spec.type',
        });
      break;
    }
  }
  return causes;
}

/** Kinds whose `spec`-like content is anything other than metadata and status (for generation bumps). */
export function specOf(o: Obj): Obj {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}
