// One line saying what an operation changes, read from the request it recorded (OperationView.request): the
// operations list shows it so that two "Instance groups" operations, an add and a scale, read apart.

type Json = Record<string, unknown>;

const FEATURES: Record<string, string> = {
  trainingOperator: 'training operator',
  tieredCheckpointing: 'tiered checkpointing',
  taskGovernance: 'task governance',
  inferenceOperator: 'inference operator',
  observability: 'observability',
  autoscaling: 'autoscaling',
};

const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function group(value: unknown): string {
  const g = obj(value);
  const type = g.instanceType ?? list(g.instanceTypes).join(' or ');
  const count = g.instanceCount ?? g.count;
  // a group's name as the request records it now (instanceGroup), or as older records have it
  return `${String(g.instanceGroup ?? g.name ?? g.group ?? 'group')}${type ? ` (${count ?? '?'} × ${String(type)})` : ''}`;
}

function groups(value: unknown): string {
  return list(value).map(group).join(', ');
}

function nodes(request: Json): string {
  const ids = list(request.nodeIds).map(String);
  if (ids.length) return ids.length > 2 ? `${ids.slice(0, 2).join(', ')} and ${ids.length - 2} more` : ids.join(', ');
  return request.count ? plural(Number(request.count), 'node') : 'nodes';
}

function changes(request: Json): string {
  const changed = obj(request.changes);
  const said = Object.entries(changed).map(([key, value]) =>
    key === 'instanceCount' ? `scale to ${String(value)}` : `${key} ${typeof value === 'object' ? 'changed' : String(value)}`,
  );
  return said.join(', ') || 'change';
}

const SUMMARIES: Record<string, (r: Json) => string> = {
  'provision-cluster': (r) => {
    const hyperpod = obj(r.hyperpod);
    const storage = obj(r.storage);
    return [
      'EKS control plane',
      list(hyperpod.instanceGroups).length ? `HyperPod in ${String(hyperpod.availabilityZone ?? '?')}: ${groups(hyperpod.instanceGroups)}` : '',
      storage.storageName ? `${String(storage.kind ?? '').toUpperCase()} storage ${String(storage.storageName)}` : '',
    ]
      .filter(Boolean)
      .join('; ');
  },
  'create-control-plane': (r) => `EKS control plane in ${list(r.availabilityZones).join(', ') || 'two zones'}`,
  'create-hyperpod': (r) => `HyperPod in ${String(r.availabilityZone ?? '?')}: ${groups(r.instanceGroups)}`,
  'delete-cluster': () => 'Delete the cluster and what Launchpod made for it',
  'delete-hyperpod': () => 'Delete the HyperPod cluster',
  'import-cluster': () => 'Import an EKS cluster made outside Launchpod',
  'instance-groups': (r) => {
    const name = String(r.group ?? '');
    if (r.action === 'add') return `Add group ${group({ ...obj(r.add), name })}`;
    if (r.action === 'delete') return `Delete group ${name}`;
    return `Group ${name}: ${changes(r)}`;
  },
  autoscaling: (r) => (r.enabled === false ? 'Autoscaling off' : `Autoscaling on for ${list(r.instanceGroups ?? r.groups).map(String).join(', ') || 'groups'}`),
  'configure-features': (r) =>
    capital(
      Object.entries(r)
        .filter(([key]) => key in FEATURES)
        .map(([key, value]) => `${FEATURES[key]} ${obj(value).enabled === false ? 'off' : 'on'}`)
        .join(', ') || 'features',
    ),
  'reconcile-dependencies': (r) => (r.includeOptional ? 'Dependencies, the optional ones included' : 'Required dependencies'),
  'configure-storage': (r) => `${String(r.kind ?? '').toUpperCase()} storage ${String(r.storageName ?? '')}`.trim(),
  'configure-mlflow': (r) => `MLflow tracking server ${String(r.trackingServerName ?? '')}`.trim(),
  'model-download': (r) => `Download ${String(r.repoId ?? 'a model')}${r.storage ? ` into ${String(r.storage)}` : ''}`,
  'update-software': (r) => `Software update${list(r.instanceGroups).length ? ` of ${list(r.instanceGroups).map(String).join(', ')}` : ''}`,
  'move-nodes': (r) => `Move ${nodes(r)} from ${String(r.sourceGroup ?? '?')} to ${String(r.targetGroup ?? '?')}`,
  'reboot-nodes': (r) => `Reboot ${nodes(r)}`,
  'replace-nodes': (r) => `Replace ${nodes(r)}`,
  'delete-nodes': (r) => `Delete ${nodes(r)}`,
  'health-check': (r) => `Health checks (${list(r.checks).map(String).join(', ') || 'deep'}) on ${plural(list(r.targets).length, 'target')}`,
};

/** What ``operation`` changes, in one line; the first planned step when its kind has no summary here. */
export function operationSummary(operation: {
  kind: string;
  request: Json;
  plan?: { action: string; target: string }[];
}): string {
  const request = operation.request ?? {};
  const summary = SUMMARIES[operation.kind];
  if (summary) return summary(request);
  if (typeof request.action === 'string' && typeof request.endpoint === 'string') {
    const replicas = request.action === 'scale' && request.replicas != null ? ` to ${plural(Number(request.replicas), 'replica')}` : '';
    return `${capital(request.action)} endpoint ${request.endpoint}${replicas}`;
  }
  const first = operation.plan?.[0];
  return first ? capital(`${first.action} ${first.target}`) : '-';
}
