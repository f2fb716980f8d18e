// Server-side printers for the built-in kinds: kubectl's usual columns, as the Kubernetes API server
// produces them (pkg/printers/internalversion). Cells are always generated "wide"; columns with
// priority 1 are the ones kubectl shows only with `-o wide`.

import { formatLabelSelector, formatLabels, humanDuration, since } from './format.ts';

type Obj = Record<string, unknown>;

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface PrintedRow {
  cells: unknown[];
  conditions?: Obj[];
}

export interface Printer {
  columns: ColumnDefinition[];
  row(obj: Obj, now: number): PrintedRow;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);
const get = (o: unknown, ...path: string[]): unknown => {
  let cur = o;
  for (const p of path) cur = isObj(cur) ? cur[p] : undefined;
  return cur;
};

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export function col(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): ColumnDefinition {
  return { name, type, format, description, priority };
}
export const NAME_COLUMN = col('Name', 'string', NAME_DESCRIPTION, 0, 'name');
export const AGE_COLUMN = col('Age', 'string', CREATION_DESCRIPTION);
const CONTAINERS = col('Containers', 'string', 'Names of each container in the template.', 1);
const IMAGES = col('Images', 'string', 'Images referenced by each container in the template.', 1);
const selectorCol = (what: string) =>
  col('Selector', 'string', `Label query over pods that should match the replicas count. ${what}`, 1);

const nameOf = (o: Obj) => str(get(o, 'metadata', 'name'));
const age = (o: Obj, now: number) => since(get(o, 'metadata', 'creationTimestamp'), now);

/** layoutContainerCells: names and images joined with commas. */
function containerCells(podSpec: unknown): [string, string] {
  const cs = list(get(podSpec, 'containers')).map(obj);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

function hasCondition(o: Obj, type: string, path: string[] = ['status', 'conditions']): boolean {
  const c = list(get(o, ...path))
    .map(obj)
    .find((x) => x.type === type);
  return c?.status === 'True';
}

function printPod(pod: Obj, now: number): PrintedRow {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const initSpecs = new Map(list(spec.initContainers).map((c) => [str(obj(c).name), obj(c)]));
  const restartable = (name: string) => initSpecs.get(name)?.restartPolicy === 'Always';
  const total = list(spec.containers).length + [...initSpecs.keys()].filter(restartable).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  const phase = str(status.phase);
  let reason = status.reason ? str(status.reason) : phase;
  for (const c of list(status.conditions).map(obj)) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const finishedAt = (cs: Obj) => Date.parse(str(get(cs, 'lastState', 'terminated', 'finishedAt'))) || 0;

  let initializing = false;
  const initStatuses = list(status.initContainerStatuses).map(obj);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    restarts += int(cs.restartCount);
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    if (restartable(str(cs.name))) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(cs));
    }
    const terminated = get(cs, 'state', 'terminated');
    const waiting = get(cs, 'state', 'waiting');
    if (isObj(terminated) && int(terminated.exitCode) === 0) continue;
    if (restartable(str(cs.name)) && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (isObj(terminated)) {
      if (!terminated.reason) {
        reason = terminated.signal
          ? `Init:Signal:${int(terminated.signal)}`
          : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else {
        reason = `Init:${str(terminated.reason)}`;
      }
    } else if (isObj(waiting) && waiting.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses).map(obj);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const waiting = get(cs, 'state', 'waiting');
      const terminated = get(cs, 'state', 'terminated');
      if (isObj(waiting) && waiting.reason) reason = str(waiting.reason);
      else if (isObj(terminated) && terminated.reason) reason = str(terminated.reason);
      else if (isObj(terminated)) {
        reason = terminated.signal
          ? `Signal:${int(terminated.signal)}`
          : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready === true && isObj(get(cs, 'state', 'running'))) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = Boolean(get(pod, 'metadata', 'deletionTimestamp'));
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell =
    restarts !== 0 && lastRestart > 0
      ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
      : String(restarts);
  const podIP = str(get(list(status.podIPs)[0], 'ip')) || str(status.podIP) || '<none>';
  const gates = list(spec.readinessGates).map(obj);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    const trueCount = gates.filter((g) => hasCondition(pod, str(g.conditionType))).length;
    readinessGates = `${trueCount}/${gates.length}`;
  }
  const row: PrintedRow = {
    cells: [
      nameOf(pod),
      `${ready}/${total}`,
      reason,
      restartsCell,
      age(pod, now),
      podIP,
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      readinessGates,
    ],
  };
  if (phase === 'Succeeded') {
    row.conditions = [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ];
  } else if (phase === 'Failed') {
    row.conditions = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  }
  return row;
}

function nodeAddress(node: Obj, type: string): string {
  const a = list(get(node, 'status', 'addresses'))
    .map(obj)
    .find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

function printNode(node: Obj, now: number): PrintedRow {
  const ready = list(get(node, 'status', 'conditions'))
    .map(obj)
    .find((c) => c.type === 'Ready');
  const status: string[] = [];
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (get(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(obj(get(node, 'metadata', 'labels')))) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) {
      roles.add(str(v));
    }
  }
  const info = obj(get(node, 'status', 'nodeInfo'));
  return {
    cells: [
      nameOf(node),
      status.join(','),
      [...roles].sort().join(',') || '<none>',
      age(node, now),
      str(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ],
  };
}

function serviceExternalIP(svc: Obj): string {
  const spec = obj(svc.spec);
  const externalIPs = list(spec.externalIPs).map(str);
  switch (str(spec.type) || 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(get(svc, 'status', 'loadBalancer', 'ingress')).map(obj);
      const lb = [...new Set(ingress.map((i) => str(i.ip) || str(i.hostname)).filter(Boolean))].sort();
      if (externalIPs.length > 0) return [...lb, ...externalIPs].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function printService(svc: Obj, now: number): PrintedRow {
  const spec = obj(svc.spec);
  const ports = list(spec.ports)
    .map(obj)
    .map((p) => {
      const proto = str(p.protocol) || 'TCP';
      return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${proto}` : `${int(p.port)}/${proto}`;
    })
    .join(',');
  const clusterIP = str(list(spec.clusterIPs)[0]) || str(spec.clusterIP) || '<none>';
  return {
    cells: [
      nameOf(svc),
      str(spec.type) || 'ClusterIP',
      clusterIP,
      serviceExternalIP(svc),
      ports || '<none>',
      age(svc, now),
      formatLabels(spec.selector),
    ],
  };
}

function accessModes(modes: unknown): string {
  const have = list(modes).map(str);
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([m]) => have.includes(m))
    .map(([, s]) => s)
    .join(',');
}

function printPVC(pvc: Obj, now: number): PrintedRow {
  const spec = obj(pvc.spec);
  const status = obj(pvc.status);
  const phase = get(pvc, 'metadata', 'deletionTimestamp') ? 'Terminating' : str(status.phase);
  const bound = str(spec.volumeName) !== '';
  const storageClass =
    str(spec.storageClassName) ||
    str(get(pvc, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class'));
  return {
    cells: [
      nameOf(pvc),
      phase,
      str(spec.volumeName),
      bound ? str(get(status, 'capacity', 'storage')) : '',
      bound ? accessModes(status.accessModes) : '',
      storageClass,
      str(spec.volumeAttributesClassName) || '<unset>',
      age(pvc, now),
      str(spec.volumeMode) || '<unset>',
    ],
  };
}

function printPV(pv: Obj, now: number): PrintedRow {
  const spec = obj(pv.spec);
  const status = obj(pv.status);
  const ref = obj(spec.claimRef);
  return {
    cells: [
      nameOf(pv),
      str(get(spec, 'capacity', 'storage')),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      get(pv, 'metadata', 'deletionTimestamp') ? 'Terminating' : str(status.phase),
      spec.claimRef ? `${str(ref.namespace)}/${str(ref.name)}` : '',
      str(spec.storageClassName) ||
        str(get(pv, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class')),
      str(spec.volumeAttributesClassName) || '<unset>',
      str(status.reason),
      age(pv, now),
      str(spec.volumeMode) || '<unset>',
    ],
  };
}

function eventSource(ev: Obj): string {
  const component =
    str(get(ev, 'source', 'component')) || str(ev.reportingComponent) || str(ev.reportingController);
  const instance = str(get(ev, 'source', 'host')) || str(ev.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

function printEvent(ev: Obj, now: number): PrintedRow {
  let first = since(ev.firstTimestamp, now);
  if (!ev.firstTimestamp) first = since(ev.eventTime, now);
  let last = ev.lastTimestamp ? since(ev.lastTimestamp, now) : first;
  let count = int(ev.count);
  if (isObj(ev.series)) {
    last = since(ev.series.lastObservedTime, now);
    count = int(ev.series.count);
  } else if (count === 0) {
    count = 1;
  }
  const involved = obj(ev.involvedObject);
  const kind = str(involved.kind).toLowerCase();
  const target = involved.name ? `${kind}/${str(involved.name)}` : kind;
  return {
    cells: [
      last,
      str(ev.type),
      str(ev.reason),
      target,
      str(involved.fieldPath),
      eventSource(ev),
      str(ev.message).trim(),
      first,
      count,
      nameOf(ev),
    ],
  };
}

function subjects(binding: Obj): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of list(binding.subjects).map(obj)) {
    if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
    else if (s.kind === 'ServiceAccount')
      sas.push(s.namespace ? `${str(s.namespace)}/${str(s.name)}` : str(s.name));
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function printBinding(b: Obj, now: number): PrintedRow {
  const ref = obj(b.roleRef);
  return { cells: [nameOf(b), `${str(ref.kind)}/${str(ref.name)}`, age(b, now), ...subjects(b)] };
}

function jobStatus(job: Obj): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (get(job, 'metadata', 'deletionTimestamp')) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function printJob(job: Obj, now: number): PrintedRow {
  const spec = obj(job.spec);
  const status = obj(job.status);
  const succeeded = int(status.succeeded);
  let completions: string;
  if (typeof spec.completions === 'number') completions = `${succeeded}/${int(spec.completions)}`;
  else if (int(spec.parallelism) > 1) completions = `${succeeded}/1 of ${int(spec.parallelism)}`;
  else completions = `${succeeded}/1`;
  let duration = '';
  const start = Date.parse(str(status.startTime));
  const end = Date.parse(str(status.completionTime));
  if (!Number.isNaN(start)) duration = humanDuration((Number.isNaN(end) ? now : end) - start);
  const [names, images] = containerCells(get(spec, 'template', 'spec'));
  return {
    cells: [
      nameOf(job),
      jobStatus(job),
      completions,
      duration,
      age(job, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ],
  };
}

function printCronJob(cj: Obj, now: number): PrintedRow {
  const spec = obj(cj.spec);
  const status = obj(cj.status);
  const jobSpec = get(spec, 'jobTemplate', 'spec');
  const [names, images] = containerCells(get(jobSpec, 'template', 'spec'));
  return {
    cells: [
      nameOf(cj),
      str(spec.schedule),
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>',
      typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>',
      list(status.active).length,
      status.lastScheduleTime ? since(status.lastScheduleTime, now) : '<none>',
      age(cj, now),
      names,
      images,
      formatLabelSelector(get(jobSpec, 'selector')),
    ],
  };
}

const replicas = (o: Obj) =>
  typeof get(o, 'spec', 'replicas') === 'number' ? int(get(o, 'spec', 'replicas')) : 1;
const statusInt = (o: Obj, field: string) => int(get(o, 'status', field));
const templateCells = (o: Obj) => containerCells(get(o, 'spec', 'template', 'spec'));

export const PRINTERS: Record<string, Printer> = {
  '/Namespace': {
    columns: [NAME_COLUMN, col('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
    row: (o, now) => ({ cells: [nameOf(o), str(get(o, 'status', 'phase')), age(o, now)] }),
  },
  '/Node': {
    columns: [
      NAME_COLUMN,
      col('Status', 'string', 'The status of the node'),
      col('Roles', 'string', 'The roles of the node'),
      AGE_COLUMN,
      col('Version', 'string', 'Kubelet Version reported by the node.'),
      col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
      col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
      col(
        'OS-Image',
        'string',
        'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
        1,
      ),
      col(
        'Kernel-Version',
        'string',
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
        1,
      ),
      col(
        'Container-Runtime',
        'string',
        'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
        1,
      ),
    ],
    row: printNode,
  },
  '/Pod': {
    columns: [
      NAME_COLUMN,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col(
        'Restarts',
        'string',
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      ),
      AGE_COLUMN,
      col(
        'IP',
        'string',
        'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
        1,
      ),
      col('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
      col(
        'Nominated Node',
        'string',
        'nominatedNodeName is set only when this pod preempts other pods on the node.',
        1,
      ),
      col(
        'Readiness Gates',
        'string',
        'If specified, all readiness gates will be evaluated for pod readiness.',
        1,
      ),
    ],
    row: printPod,
  },
  '/Service': {
    columns: [
      NAME_COLUMN,
      col('Type', 'string', 'type determines how the Service is exposed.'),
      col(
        'Cluster-IP',
        'string',
        'clusterIP is the IP address of the service and is usually assigned randomly.',
      ),
      col(
        'External-IP',
        'string',
        'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      ),
      col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      AGE_COLUMN,
      col(
        'Selector',
        'string',
        'Route service traffic to pods with label keys and values matching this selector.',
        1,
      ),
    ],
    row: printService,
  },
  '/Endpoints': {
    columns: [
      NAME_COLUMN,
      col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'),
      AGE_COLUMN,
    ],
    row: (o, now) => {
      const all: string[] = [];
      let count = 0;
      for (const ss of list(o.subsets).map(obj)) {
        const addrs = list(ss.addresses).map((a) => str(obj(a).ip));
        const ports = list(ss.ports).map(obj);
        if (ports.length === 0) {
          count += addrs.length;
          all.push(...addrs);
        } else {
          for (const p of ports) {
            count += addrs.length;
            all.push(
              ...addrs.map((ip) => (ip.includes(':') ? `[${ip}]:${int(p.port)}` : `${ip}:${int(p.port)}`)),
            );
          }
        }
      }
      const shown = all.slice(0, 3).join(',');
      const cell = count === 0 ? '<none>' : count > 3 ? `${shown} + ${count - 3} more...` : shown;
      return { cells: [nameOf(o), cell, age(o, now)] };
    },
  },
  '/ConfigMap': {
    columns: [NAME_COLUMN, col('Data', 'string', 'Data contains the configuration data.'), AGE_COLUMN],
    row: (o, now) => ({
      cells: [
        nameOf(o),
        Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length,
        age(o, now),
      ],
    }),
  },
  '/Secret': {
    columns: [
      NAME_COLUMN,
      col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
      col('Data', 'string', 'Data contains the secret data.'),
      AGE_COLUMN,
    ],
    row: (o, now) => ({ cells: [nameOf(o), str(o.type), Object.keys(obj(o.data)).length, age(o, now)] }),
  },
  '/ResourceQuota': {
    columns: [
      NAME_COLUMN,
      AGE_COLUMN,
      col(
        'Request',
        'string',
        'Request represents a minimum amount of cpu/memory that a container may consume.',
      ),
      col(
        'Limit',
        'string',
        'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      ),
    ],
    row: printResourceQuota,
  },
  '/ServiceAccount': {
    columns: [
      NAME_COLUMN,
      col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace.'),
      AGE_COLUMN,
    ],
    row: (o, now) => ({ cells: [nameOf(o), list(o.secrets).length, age(o, now)] }),
  },
  '/Event': {
    columns: [
      col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
      col(
        'Reason',
        'string',
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col('Object', 'string', 'The object that this event is about.'),
      col(
        'Subobject',
        'string',
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
        1,
      ),
      col('Source', 'string', 'The component reporting this event.', 1),
      col('Message', 'string', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'string', 'The time at which the event was first recorded.', 1),
      col('Count', 'string', 'The number of times this event has occurred.', 1),
      col('Name', 'string', NAME_DESCRIPTION, 1, 'name'),
    ],
    row: printEvent,
  },
  '/PersistentVolumeClaim': {
    columns: [
      NAME_COLUMN,
      col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      col(
        'Volume',
        'string',
        'volumeName is the binding reference to the PersistentVolume backing this claim.',
      ),
      col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      col(
        'Access Modes',
        'string',
        'accessModes contains the actual access modes the volume backing the PVC has.',
      ),
      col('StorageClass', 'string', 'StorageClass of the pvc'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      AGE_COLUMN,
      col('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
    ],
    row: printPVC,
  },
  '/PersistentVolume': {
    columns: [
      NAME_COLUMN,
      col(
        'Capacity',
        'string',
        "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
      ),
      col(
        'Access Modes',
        'string',
        'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes',
      ),
      col(
        'Reclaim Policy',
        'string',
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
      ),
      col(
        'Status',
        'string',
        'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase',
      ),
      col(
        'Claim',
        'string',
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
      ),
      col('StorageClass', 'string', 'StorageClass of the pv'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
      col(
        'Reason',
        'string',
        'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
      ),
      AGE_COLUMN,
      col(
        'VolumeMode',
        'string',
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
        1,
      ),
    ],
    row: printPV,
  },
  'apps/Deployment': {
    columns: [
      NAME_COLUMN,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col(
        'Up-to-date',
        'string',
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      col(
        'Available',
        'string',
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
      selectorCol('Label selector for pods.'),
    ],
    row: (o, now) => ({
      cells: [
        nameOf(o),
        `${statusInt(o, 'readyReplicas')}/${replicas(o)}`,
        statusInt(o, 'updatedReplicas'),
        statusInt(o, 'availableReplicas'),
        age(o, now),
        ...templateCells(o),
        formatLabelSelector(get(o, 'spec', 'selector')),
      ],
    }),
  },
  'apps/ReplicaSet': {
    columns: [
      NAME_COLUMN,
      col('Desired', 'integer', 'Replicas is the number of desired replicas.'),
      col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      col(
        'Ready',
        'integer',
        'readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.',
      ),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
      selectorCol('Selector is a label query over pods that should match the replica count.'),
    ],
    row: (o, now) => ({
      cells: [
        nameOf(o),
        replicas(o),
        statusInt(o, 'replicas'),
        statusInt(o, 'readyReplicas'),
        age(o, now),
        ...templateCells(o),
        formatLabelSelector(get(o, 'spec', 'selector')),
      ],
    }),
  },
  'apps/StatefulSet': {
    columns: [
      NAME_COLUMN,
      col('Ready', 'string', 'Number of the pod with ready state'),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
    ],
    row: (o, now) => ({
      cells: [nameOf(o), `${statusInt(o, 'readyReplicas')}/${replicas(o)}`, age(o, now), ...templateCells(o)],
    }),
  },
  'apps/DaemonSet': {
    columns: [
      NAME_COLUMN,
      col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
      col(
        'Current',
        'integer',
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      ),
      col(
        'Ready',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
      ),
      col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      col(
        'Available',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      ),
      col(
        'Node Selector',
        'string',
        'NodeSelector is a selector which must be true for the pod to fit on a node.',
      ),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
      selectorCol('A label query over pods that are managed by the daemon set.'),
    ],
    row: (o, now) => ({
      cells: [
        nameOf(o),
        statusInt(o, 'desiredNumberScheduled'),
        statusInt(o, 'currentNumberScheduled'),
        statusInt(o, 'numberReady'),
        statusInt(o, 'updatedNumberScheduled'),
        statusInt(o, 'numberAvailable'),
        formatLabels(get(o, 'spec', 'template', 'spec', 'nodeSelector')),
        age(o, now),
        ...templateCells(o),
        formatLabelSelector(get(o, 'spec', 'selector')),
      ],
    }),
  },
  'batch/Job': {
    columns: [
      NAME_COLUMN,
      col('Status', 'string', 'Status of the job.'),
      col('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
      col('Duration', 'string', 'Time required to complete the job.'),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
      selectorCol('A label query over pods that should match the pod count.'),
    ],
    row: printJob,
  },
  'batch/CronJob': {
    columns: [
      NAME_COLUMN,
      col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      col(
        'Timezone',
        'string',
        'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
      ),
      col('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions.'),
      col('Active', 'integer', 'A list of pointers to currently running jobs.'),
      col(
        'Last Schedule',
        'string',
        'Information when was the last time the job was successfully scheduled.',
      ),
      AGE_COLUMN,
      CONTAINERS,
      IMAGES,
      selectorCol('A label query over pods that should match the pod count.'),
    ],
    row: printCronJob,
  },
  'rbac.authorization.k8s.io/RoleBinding': {
    columns: [
      NAME_COLUMN,
      col(
        'Role',
        'string',
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
      ),
      AGE_COLUMN,
      col('Users', 'string', 'Users in the roleBinding', 1),
      col('Groups', 'string', 'Groups in the roleBinding', 1),
      col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
    ],
    row: printBinding,
  },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    columns: [
      NAME_COLUMN,
      col('Role', 'string', 'RoleRef can only reference a ClusterRole in the global namespace.'),
      AGE_COLUMN,
      col('Users', 'string', 'Users in the clusterRoleBinding', 1),
      col('Groups', 'string', 'Groups in the clusterRoleBinding', 1),
      col('ServiceAccounts', 'string', 'ServiceAccounts in the clusterRoleBinding', 1),
    ],
    row: printBinding,
  },
  'coordination.k8s.io/Lease': {
    columns: [
      NAME_COLUMN,
      col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'),
      AGE_COLUMN,
    ],
    row: (o, now) => ({ cells: [nameOf(o), str(get(o, 'spec', 'holderIdentity')), age(o, now)] }),
  },
  'networking.k8s.io/NetworkPolicy': {
    columns: [
      NAME_COLUMN,
      col('Pod-Selector', 'string', 'Select the pods to which this NetworkPolicy object applies.'),
      AGE_COLUMN,
    ],
    row: (o, now) => ({
      cells: [nameOf(o), formatLabelSelector(get(o, 'spec', 'podSelector')), age(o, now)],
    }),
  },
  'networking.k8s.io/Ingress': {
    columns: [
      NAME_COLUMN,
      col(
        'Class',
        'string',
        'The name of the IngressClass resource that should be used for additional configuration',
      ),
      col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      col('Ports', 'string', 'Ports of TLS configurations that open'),
      AGE_COLUMN,
    ],
    row: printIngress,
  },
  'networking.k8s.io/IngressClass': {
    columns: [
      NAME_COLUMN,
      col('Controller', 'string', 'Controller that is responsible for handling this class'),
      col('Parameters', 'string', 'A reference to a resource with additional parameters'),
      AGE_COLUMN,
    ],
    row: (o, now) => {
      const p = get(o, 'spec', 'parameters');
      const group = str(get(p, 'apiGroup'));
      const params = isObj(p) ? `${str(p.kind)}${group ? `.${group}` : ''}/${str(p.name)}` : '<none>';
      return { cells: [nameOf(o), str(get(o, 'spec', 'controller')), params, age(o, now)] };
    },
  },
  'policy/PodDisruptionBudget': {
    columns: [
      NAME_COLUMN,
      col('Min Available', 'string', 'The minimum number of pods that must be available'),
      col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable'),
      col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time'),
      AGE_COLUMN,
    ],
    row: (o, now) => {
      const orNA = (v: unknown) => (v === undefined || v === null ? 'N/A' : str(v));
      return {
        cells: [
          nameOf(o),
          orNA(get(o, 'spec', 'minAvailable')),
          orNA(get(o, 'spec', 'maxUnavailable')),
          statusInt(o, 'disruptionsAllowed'),
          age(o, now),
        ],
      };
    },
  },
  'scheduling.k8s.io/PriorityClass': {
    columns: [
      NAME_COLUMN,
      col('Value', 'integer', 'value represents the integer value of this priority class.'),
      col(
        'Global-Default',
        'boolean',
        'globalDefault specifies whether this PriorityClass should be considered as the default priority.',
      ),
      AGE_COLUMN,
      col(
        'PreemptionPolicy',
        'string',
        'preemptionPolicy is the Policy for preempting pods with lower priority.',
      ),
    ],
    row: (o, now) => ({
      cells: [nameOf(o), int(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)],
    }),
  },
  'storage.k8s.io/StorageClass': {
    columns: [
      NAME_COLUMN,
      col('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
      col(
        'ReclaimPolicy',
        'string',
        'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
      ),
      col(
        'VolumeBindingMode',
        'string',
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
      ),
      col(
        'AllowVolumeExpansion',
        'string',
        'allowVolumeExpansion shows whether the storage class allow volume expand.',
      ),
      AGE_COLUMN,
    ],
    row: (o, now) => ({
      cells: [
        isDefaultClass(o) ? `${nameOf(o)} (default)` : nameOf(o),
        str(o.provisioner),
        str(o.reclaimPolicy) || 'Delete',
        str(o.volumeBindingMode) || 'Immediate',
        o.allowVolumeExpansion === true,
        age(o, now),
      ],
    }),
  },
};

/** kube's IsDefaultAnnotation: the class claims without one get. */
const isDefaultClass = (o: Obj) =>
  ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'].some(
    (k) => get(o, 'metadata', 'annotations', k) === 'true',
  );

/** kubectl's Ingress row: class, hosts (three at most), load-balancer addresses, 80 (and 443 with TLS). */
/** `name: used/hard` per spec.hard entry, sorted; `limits.*` entries in the Limit column, the rest in Request. */
function printResourceQuota(o: Obj, now: number): PrintedRow {
  const used = obj(get(o, 'status', 'used'));
  const hard = obj(get(o, 'status', 'hard'));
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(obj(get(o, 'spec', 'hard'))).sort()) {
    const cell = `${name}: ${str(used[name]) || '0'}/${str(hard[name]) || '0'}`;
    (name.split('.')[0] === 'limits' && name.includes('.') ? limit : request).push(cell);
  }
  return { cells: [nameOf(o), age(o, now), request.join(', '), limit.join(', ')] };
}

function printIngress(o: Obj, now: number): PrintedRow {
  const hosts = list(get(o, 'spec', 'rules'))
    .map((r) => str(get(r, 'host')))
    .filter(Boolean);
  const shown = hosts.slice(0, 3).join(',');
  const more = hosts.length > 3 ? `${shown} + ${hosts.length - 3} more...` : shown;
  const address = list(get(o, 'status', 'loadBalancer', 'ingress'))
    .map((i) => str(get(i, 'ip')) || str(get(i, 'hostname')))
    .filter(Boolean)
    .join(',');
  const tls = list(get(o, 'spec', 'tls')).length > 0;
  return {
    cells: [
      nameOf(o),
      str(get(o, 'spec', 'ingressClassName')) || '<none>',
      more || '*',
      address,
      tls ? '80, 443' : '80',
      age(o, now),
    ],
  };
}

/** The API server's default table for built-in kinds without a printer (Role, ClusterRole, CRD, ...). */
export const DEFAULT_PRINTER: Printer = {
  columns: [NAME_COLUMN, col('Created At', 'date', CREATION_DESCRIPTION)],
  row: (o) => {
    const ts = str(get(o, 'metadata', 'creationTimestamp'));
    const t = Date.parse(ts);
    // metav1.Time marshals in RFC 3339 at second precision, UTC.
    return {
      cells: [nameOf(o), Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z')],
    };
  },
};
