import { describe, expect, it } from 'vitest';

import type { components } from '../../api/schema';
import { TRAINING, formatValue, throughputTitle, trainingExpected, unlogged } from '../metrics';

type MetricSeriesView = components['schemas']['MetricSeriesView'];

function series(metric: string, unit: string, labels: Record<string, string> = {}): MetricSeriesView {
  return { metric, unit, labels, summary: { min: 1, avg: 1, max: 1, last: 1, lastAt: 1 }, points: [] };
}

describe("a training job's charts", () => {
  it('says what to log in place of the throughput a job does not log', () => {
    const missing = unlogged([series('gpuUtilization', 'percent'), series('loss', 'loss')], TRAINING);
    expect(missing.map((m) => m.metric)).toEqual(['throughput']);
    expect(missing[0].hint).toContain('tokens_per_second');
    expect(missing[0].hint).toContain('MLflow');
  });

  it('says nothing is missing once the job logs its loss and throughput', () => {
    const logged = [series('loss', 'loss'), series('throughput', 'tokens/s', { key: 'tokens_per_second' })];
    expect(unlogged(logged, TRAINING)).toEqual([]);
  });

  it('tells a job with no MLflow tracking server to set one up before logging', () => {
    const [loss, throughput] = unlogged([], trainingExpected(false));
    expect(loss.hint).toContain('logs to no MLflow tracking server');
    expect(throughput.hint).toContain('tokens_per_second');
    expect(trainingExpected(true)).toBe(TRAINING);
  });

  it('names the key a throughput was logged as, with its unit', () => {
    expect(throughputTitle(series('throughput', 'tokens/s/GPU', { key: 'perf/throughput' }))).toBe('perf/throughput (tokens/s/GPU)');
  });
});

describe('numbers on the charts', () => {
  it('keeps a count of tokens apart from its prefix, and a byte rate joined to it', () => {
    expect(formatValue(12_345, 'tokens/s')).toBe('12.3 k tokens/s');
    expect(formatValue(950, 'tokens/s')).toBe('950 tokens/s');
    expect(formatValue(54_000, 'bytes/s')).toBe('54.0 kbytes/s'); // thousands, not tens of thousands
    expect(formatValue(1.2e9, 'bytes/s')).toBe('1.2 Gbytes/s');
    expect(formatValue(2.41, 'loss')).toBe('2.4');
    expect(formatValue(null, 'tokens/s')).toBe('-');
  });
});
