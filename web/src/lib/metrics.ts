// How the metrics charts word their numbers, and what a training job's page says for a metric the job does not
// log. A job's loss and throughput come from the MLflow run it logs to (functions/launchpod/domain/metrics/
// training.py names the keys read, in order); the API answers no series for one it does not log.

import type { components } from '../api/schema';

type MetricSeriesView = components['schemas']['MetricSeriesView'];

// 1.2 G rather than 1200000000: bytes/s of EFA, MiB of eight GPUs. Thousands from ten thousand up (9999 stays
// as it is), but always divided by a thousand: 12345 is 12.3 k.
export function compact(value: number): string {
  const prefixes: [number, number, string][] = [
    [1e12, 1e12, 'T'],
    [1e9, 1e9, 'G'],
    [1e6, 1e6, 'M'],
    [1e4, 1e3, 'k'],
  ];
  const found = prefixes.find(([from]) => Math.abs(value) >= from);
  if (found) return `${(value / found[1]).toFixed(1)} ${found[2]}`;
  if (Number.isInteger(value) || Math.abs(value) >= 100) return value.toFixed(0);
  return value.toFixed(Math.abs(value) >= 1 ? 1 : 3);
}

// A prefix joins its unit (1.2 Gbytes/s), except a count of tokens or samples: 12.0 k tokens/s, not ktokens/s.
const COUNTED = /^(tokens|samples)\//;

export function formatValue(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined) return '-';
  if (unit === 'MiB' && Math.abs(value) >= 1024) return `${(value / 1024).toFixed(1)} GiB`;
  const shown = compact(value);
  if (unit === 'percent') return `${shown} %`;
  if (unit === 'xid' || unit === 'loss') return shown; // the XID code itself; a loss has no unit
  const prefixed = / [TGMk]$/.test(shown);
  return prefixed && !COUNTED.test(unit) ? `${shown}${unit}` : `${shown} ${unit}`;
}

export interface Unlogged {
  metric: string;
  title: string;
  hint: string;
}

// What a training job logs to MLflow for its page's charts, and what to log when it does not.
export const TRAINING: Unlogged[] = [
  {
    metric: 'loss',
    title: 'Training loss (MLflow)',
    hint: "No loss logged. Log loss to the job's MLflow run at each step (Hugging Face Trainer and most recipes do).",
  },
  {
    metric: 'throughput',
    title: 'Training throughput (MLflow)',
    hint:
      "No throughput logged. Log tokens_per_second to the job's MLflow run at each step; Hugging Face Trainer logs" +
      ' train_tokens_per_second with include_num_input_tokens_seen, verl logs perf/throughput.',
  },
];

/** What a job's page expects it to log: with no MLflow tracking server to log to (the cluster had none when the job
 * was submitted), the hints say to set one up first. */
export function trainingExpected(logsToMlflow: boolean): Unlogged[] {
  if (logsToMlflow) return TRAINING;
  const first =
    'This job logs to no MLflow tracking server (the cluster had none when it was submitted): set one up in the' +
    " cluster's Features tab and submit the job again, then log";
  return [
    { ...TRAINING[0], hint: `${first} loss at each step.` },
    { ...TRAINING[1], hint: `${first} tokens_per_second at each step.` },
  ];
}

/** The expected metrics the answer has no series of, in the order expected. */
export function unlogged(series: MetricSeriesView[], expected: Unlogged[]): Unlogged[] {
  const present = new Set(series.map((s) => s.metric));
  return expected.filter((e) => !present.has(e.metric));
}

/** A throughput series' title says what it was logged as: tokens/s per GPU is not the job's tokens/s. */
export function throughputTitle(series: MetricSeriesView): string {
  const key = series.labels?.key;
  return key ? `${key} (${series.unit})` : series.unit;
}
