// Metrics as charts: one Cloudscape line (or area) chart per metric of a node, a job, an endpoint or the
// cluster, read from the HyperPod observability add-on's Amazon Managed Prometheus workspace through the
// catalog's metrics routes (points=true). Without the add-on the API says so (available false): the empty
// state names what to turn on. https://cloudscape.design/components/line-chart/

import { useState } from 'react';
import AreaChart from '@cloudscape-design/components/area-chart';
import Box from '@cloudscape-design/components/box';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import LineChart from '@cloudscape-design/components/line-chart';
import SegmentedControl from '@cloudscape-design/components/segmented-control';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import type { components } from '../api/schema';
import { call } from '../lib/api';
import type { OperationId } from '../lib/api';
import { compact, formatValue, throughputTitle, unlogged } from '../lib/metrics';
import type { Unlogged } from '../lib/metrics';
import { useFetch } from '../lib/useFetch';
import ErrorAlert from './ErrorAlert';
import Link from './Link';

type MetricsView = components['schemas']['MetricsView'];
type MetricSeriesView = components['schemas']['MetricSeriesView'];
type IdleCapacityView = components['schemas']['IdleCapacityView'];

const TITLES: Record<string, string> = {
  gpuUtilization: 'GPU utilisation',
  gpuMemoryUsed: 'GPU memory used',
  gpuPower: 'GPU power',
  xidErrors: 'Last XID error',
  efaTransmit: 'EFA sent',
  efaReceive: 'EFA received',
  requestRate: 'Request rate',
  latencyP50: 'Latency p50',
  latencyP95: 'Latency p95',
  timeToFirstTokenP50: 'Time to first token p50',
  tokensPerSecond: 'Tokens generated per second',
  loss: 'Training loss (MLflow)',
  throughput: 'Training throughput (MLflow)',
  idleGpus: 'Idle GPUs',
};
const RANGES = [
  { id: '15', text: '15 minutes' },
  { id: '60', text: '1 hour' },
  { id: '360', text: '6 hours' },
  { id: '1440', text: '24 hours' },
];

function seriesTitle(series: MetricSeriesView): string {
  const labels = series.labels ?? {};
  if (labels.key) return throughputTitle(series); // logged by the job under this key
  return labels.instanceGroup ?? labels.Hostname ?? labels.instance ?? TITLES[series.metric] ?? series.metric;
}

function timeFormatter(spanMs: number) {
  // seconds on the axis when the points span less than half an hour, else hours and minutes
  const options: Intl.DateTimeFormatOptions =
    spanMs < 30 * 60 * 1000 ? { hour: '2-digit', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
  return (date: Date) => date.toLocaleTimeString(undefined, options);
}

function Chart({ metric, series, area }: { metric: string; series: MetricSeriesView[]; area?: boolean }) {
  const unit = series[0]?.unit ?? '';
  const data = series.map((s) => ({
    title: seriesTitle(s),
    type: area ? ('area' as const) : ('line' as const),
    data: (s.points ?? []).map(([t, v]) => ({ x: new Date(t * 1000), y: v })),
    valueFormatter: (y: number) => formatValue(y, unit),
  }));
  const xs = data.flatMap((d) => d.data.map((p) => p.x.getTime()));
  const domain = xs.length ? [new Date(Math.min(...xs)), new Date(Math.max(...xs))] : undefined;
  const common = {
    height: 160,
    xScaleType: 'time' as const,
    xDomain: domain,
    xTickFormatter: timeFormatter(domain ? domain[1].getTime() - domain[0].getTime() : 0),
    yTitle: unit === 'percent' ? '%' : unit === 'xid' ? 'XID' : unit,
    yTickFormatter: compact,
    ariaLabel: TITLES[metric] ?? metric,
    hideFilter: true,
    hideLegend: series.length < 2,
    empty: <Box textAlign="center">No samples in this range.</Box>,
  };
  return (
    <SpaceBetween size="xxs">
      <Box variant="h4">
        {TITLES[metric] ?? metric}{' '}
        <Box variant="small" display="inline">
          last {series.map((s) => formatValue(s.summary.last, unit)).join(', ')} · max {series.map((s) => formatValue(s.summary.max, unit)).join(', ')}
          {series[0]?.labels?.key ? ` · logged as ${series[0].labels.key}` : ''}
        </Box>
      </Box>
      {area ? (
        <AreaChart {...common} series={data as never} yDomain={undefined} />
      ) : (
        <LineChart {...common} series={data as never} yDomain={unit === 'percent' ? [0, 100] : undefined} />
      )}
    </SpaceBetween>
  );
}

/** In place of a chart of what the job does not log: what to log. */
function NotLogged({ expected }: { expected: Unlogged }) {
  return (
    <SpaceBetween size="xxs">
      <Box variant="h4">{expected.title}</Box>
      <Box textAlign="center" color="text-status-inactive" padding={{ vertical: 'l' }}>
        <span data-testid={`metrics-unlogged-${expected.metric}`}>{expected.hint}</span>
      </Box>
    </SpaceBetween>
  );
}

/** What a chart shows while the cluster has no metrics workspace: the feature that makes one, one click away
 * (the API's message names the route for agents; the console names its own tab). */
function EnableObservability({ cluster }: { cluster: string }) {
  return (
    <Box textAlign="center" color="text-status-inactive" data-testid="metrics-empty">
      <b>No metrics yet.</b> Charts read the Amazon Managed Prometheus workspace that HyperPod observability writes
      to.{' '}
      <Link href={`/clusters/${encodeURIComponent(cluster)}?tab=features`}>Turn on HyperPod observability</Link>
    </Box>
  );
}

/** The charts of one metrics route: ``op`` with its path ``params``. */
export default function MetricsCharts({
  op,
  params,
  title,
  query,
  area,
  expect = [],
}: {
  op: OperationId;
  params: Record<string, string>;
  title: string;
  query?: Record<string, string>;
  area?: string[];
  /** metrics the subject should log itself (a job's loss and throughput): their empty state says what to log */
  expect?: Unlogged[];
}) {
  const [minutes, setMinutes] = useState('60');
  const { data, error } = useFetch(
    // 300 points a chart: a 15-minute range every 3 s, a day every 4.8 minutes
    () => call<MetricsView>(op, params, { query: { ...query, minutes, step: Math.max(1, Math.round((Number(minutes) * 60) / 300)), points: 'true' } }),
    [op, JSON.stringify(params), minutes],
    30000,
  );
  const byMetric = new Map<string, MetricSeriesView[]>();
  for (const s of data?.series ?? []) byMetric.set(s.metric, [...(byMetric.get(s.metric) ?? []), s]);
  const missing = data ? unlogged(data.series, expect) : [];
  return (
    <div data-testid={`metrics-${op}`}>
    <Container
      header={
        <Header
          variant="h3"
          actions={
            <SegmentedControl selectedId={minutes} onChange={({ detail }) => setMinutes(detail.selectedId)} label="Time range" options={RANGES} />
          }
        >
          {title}
        </Header>
      }
    >
      <ErrorAlert error={error} />
      {data && !data.available ? <EnableObservability cluster={data.cluster} /> : null}
      {data && data.available && byMetric.size === 0 && !expect.length ? (
        <Box textAlign="center" color="text-status-inactive">
          {data.message ?? 'No samples in this range.'}
        </Box>
      ) : data && byMetric.size + missing.length > 0 ? (
        // a job's MLflow series answer without the add-on too: they are charted below its notice
        <ColumnLayout columns={byMetric.size + missing.length > 1 ? 2 : 1}>
          {[...byMetric.entries()].map(([metric, series]) => (
            <Chart key={metric} metric={metric} series={series} area={area?.includes(metric)} />
          ))}
          {missing.map((m) => (
            <NotLogged key={m.metric} expected={m} />
          ))}
        </ColumnLayout>
      ) : null}
    </Container>
    </div>
  );
}

const PRICING_PAGE = 'https://aws.amazon.com/sagemaker-ai/pricing/';

/** GPU nodes idle longer than a threshold, with what they cost per hour (estimated: domain/metrics/prices.py). */
export function IdleCapacity({ cluster }: { cluster: string }) {
  const [threshold, setThreshold] = useState('30');
  const { data, error } = useFetch(
    () => call<IdleCapacityView>('list_idle_capacity', { name: cluster }, { query: { thresholdMinutes: threshold } }),
    [cluster, threshold],
    30000,
  );
  const total = data && data.nodes.length ? ` · ${data.idleGpus} GPUs · about $${data.usdPerHour.toFixed(2)}/hour` : '';
  return (
    <div data-testid="idle-capacity">
    <Table
      wrapLines
      variant="container"
      header={
        <Header
          variant="h3"
          description={
            <span data-testid="price-note">
              Costs are estimates: on-demand list prices for us-east-1 copied into Launchpod from the{' '}
              <Link href={PRICING_PAGE} external>
                SageMaker AI pricing page
              </Link>
              , not your bill (no Savings Plans, reservations or training plans).
            </span>
          }
          actions={
            <SegmentedControl
              selectedId={threshold}
              onChange={({ detail }) => setThreshold(detail.selectedId)}
              label="Idle for at least"
              options={[
                { id: '0', text: 'now' },
                { id: '30', text: '30 min' },
                { id: '240', text: '4 hours' },
              ]}
            />
          }
        >
          Idle GPU nodes{total}
        </Header>
      }
      items={data?.nodes ?? []}
      loading={!data && !error}
      loadingText="Reading the workspace"
      empty={
        <Box textAlign="center" color="text-status-inactive">
          {error ? (
            <ErrorAlert error={error} />
          ) : data && !data.available ? (
            <EnableObservability cluster={cluster} />
          ) : (
            data?.message ?? 'No idle GPU node.'
          )}
        </Box>
      }
      columnDefinitions={[
        { id: 'node', header: 'Node', cell: (n) => n.nodeId ?? n.kubernetesNode },
        { id: 'group', header: 'Group', cell: (n) => n.instanceGroup ?? '-' },
        { id: 'type', header: 'Type', cell: (n) => n.instanceType ?? '-' },
        { id: 'gpus', header: 'GPUs', cell: (n) => n.gpus },
        { id: 'idle', header: 'Idle for', cell: (n) => (n.idleMinutes >= 120 ? `${Math.floor(n.idleMinutes / 60)} h` : `${n.idleMinutes} min`) },
        { id: 'cost', header: 'Estimated cost per hour', cell: (n) => (n.usdPerHour === null || n.usdPerHour === undefined ? 'no price in the table' : `~$${n.usdPerHour.toFixed(2)}`) },
      ]}
    />
    </div>
  );
}
