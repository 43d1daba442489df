// A failed HyperPod creation asked for again: the HyperPod part of the failed operation's request (a
// create-hyperpod request, or a provision's `hyperpod`), with another zone. The API deletes the failed
// cluster and creates it again as asked (its dry run says so).

import type { OperationView } from './types';

export interface HyperPodAsk {
  availabilityZone: string;
  instanceGroups: { instanceGroup: string; instanceType: string; instanceCount: number }[];
  [field: string]: unknown;
}

const HYPERPOD_PHASES = new Set(['CreateHyperPod', 'WaitInService']);

/** The HyperPod request of a failed operation whose HyperPod part failed, or null. */
export function failedHyperPodAsk(operation: OperationView): HyperPodAsk | null {
  if (operation.status !== 'FAILED') return null;
  const failed = operation.phases.find((p) => p.status === 'FAILED');
  if (!failed || !HYPERPOD_PHASES.has(failed.name)) return null;
  const request = operation.request as Record<string, unknown>;
  let ask: Record<string, unknown> | null = null;
  if (operation.kind === 'create-hyperpod') {
    const { name: _name, ...rest } = request;
    ask = rest;
  } else if (operation.kind === 'provision-cluster' && request.hyperpod && typeof request.hyperpod === 'object') {
    ask = request.hyperpod as Record<string, unknown>;
  }
  if (!ask || typeof ask.availabilityZone !== 'string' || !Array.isArray(ask.instanceGroups)) return null;
  return ask as HyperPodAsk;
}

/** The zones to offer instead: every zone that offers each of the request's types, but the one that failed. */
export function otherZones(ask: HyperPodAsk, offered: { instanceType: string; availabilityZones: string[] }[]): string[] {
  const byType = new Map(offered.map((o) => [o.instanceType, new Set(o.availabilityZones)]));
  const types = [...new Set(ask.instanceGroups.map((g) => g.instanceType))];
  const all = [...new Set(offered.flatMap((o) => o.availabilityZones))].sort();
  return all.filter((z) => z !== ask.availabilityZone && types.every((t) => byType.get(t)?.has(z)));
}
