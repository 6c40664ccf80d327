import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type MetricRecord } from './metric-names.js';
import { usageMetrics, type MeterObserver } from './usage-metrics.js';

/**
 * Metrics as CloudWatch embedded metric format (EMF) lines on stdout; CloudWatch Logs turns
 * them into metrics, no API call on the request path. POWERTOOLS_METRICS_DISABLED=true (the
 * local runtime's default) keeps them off the console.
 *
 * The lines are the ones Powertools' Metrics writes (one per dimension set, the `service`
 * dimension first, a name given twice holding its values as a list), built here directly:
 * Powertools keeps every metric, dimension and timestamp in per-invocation stores, each access
 * reading the environment again, which cost about a tenth of a call's CPU for five figures.
 */

/** The stack sets both from its name (lib/names.ts); locally the defaults are the default stack's. */
const SERVICE_NAME = process.env['POWERTOOLS_SERVICE_NAME'] || 'ai-gateway';
const NAMESPACE = process.env['POWERTOOLS_METRICS_NAMESPACE'] || METRICS_NAMESPACE;
/** EMF's limit of metrics per line (CloudWatch's, which Powertools also flushes at). */
const MAX_METRICS_PER_LINE = 100;

/**
 * Whether lines are written, decided once by Powertools itself from the environment
 * (POWERTOOLS_METRICS_DISABLED, else POWERTOOLS_DEV), so the switch means what its docs say.
 */
class PowertoolsSwitch extends Metrics {
  readonly off = this.isDisabled();
}
const disabled = new PowertoolsSwitch({ namespace: NAMESPACE, serviceName: SERVICE_NAME }).off;

interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

/**
 * The EMF lines for `records`, one per dimension set (an EMF line shares its dimensions across
 * its metrics), at most MAX_METRICS_PER_LINE metrics each. Dimensions with an empty value are
 * left out, as Powertools leaves them out.
 */
export function emfLines(records: readonly MetricRecord[], timestamp: number): string[] {
  const lines: string[] = [];
  for (const group of byDimensions(records)) {
    for (let start = 0; start < group.length; start += MAX_METRICS_PER_LINE) {
      lines.push(JSON.stringify(emfLine(group.slice(start, start + MAX_METRICS_PER_LINE), timestamp)));
    }
  }
  return lines;
}

function emfLine(group: readonly MetricRecord[], timestamp: number): EmfLine {
  const dimensionNames = ['service'];
  const line: EmfLine = {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [{ Namespace: NAMESPACE, Dimensions: [dimensionNames], Metrics: [] }],
    },
    service: SERVICE_NAME,
  };
  for (const [name, value] of Object.entries(group[0]!.dimensions)) {
    if (!value) continue;
    if (name !== 'service') dimensionNames.push(name);
    line[name] = value;
  }
  const definitions = line._aws.CloudWatchMetrics[0]!.Metrics;
  for (const record of group) {
    const earlier = line[record.name];
    if (earlier === undefined) {
      definitions.push({ Name: record.name, Unit: record.unit });
      line[record.name] = record.value;
    } else {
      line[record.name] = Array.isArray(earlier) ? [...(earlier as number[]), record.value] : [earlier, record.value];
    }
  }
  return line;
}

/**
 * Writes records at once. Synchronous, so concurrent calls of the local runtime never
 * interleave within a line; nothing is left buffered when an invocation ends.
 */
export function publishMetrics(records: readonly MetricRecord[]): void {
  if (disabled || records.length === 0) return;
  for (const line of emfLines(records, Date.now())) process.stdout.write(`${line}\n`);
}

function byDimensions(records: readonly MetricRecord[]): MetricRecord[][] {
  const groups = new Map<string, MetricRecord[]>();
  for (const record of records) {
    const key = dimensionsKey(record.dimensions);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}

/** The same set of dimensions, whatever order its entries were written in. */
function dimensionsKey(dimensions: Readonly<Record<string, string>>): string {
  const names = Object.keys(dimensions);
  if (names.length === 0) return '';
  if (names.length > 1) names.sort();
  let key = '';
  for (const name of names) key += `${name}\u0000${dimensions[name]}\u0000`;
  return key;
}

/**
 * The chat core's meter observer in a deployment: each metered entry becomes its metrics (not
 * even built when metrics are off, as in the local runtime).
 */
export const publishUsageMetrics: MeterObserver = (entry, timing) => {
  if (!disabled) publishMetrics(usageMetrics(entry, timing));
};
