import { Metrics } from '@aws-lambda-powertools/metrics';
import { jest } from '@jest/globals';
import fc from 'fast-check';
import { emfLines } from '../../../lambdas/observability/metrics.js';
import {
  DIMENSION,
  METRIC,
  METRICS_NAMESPACE,
  type MetricRecord,
} from '../../../lambdas/observability/metric-names.js';
import { callMetrics } from '../../../lambdas/observability/call-metrics.js';

/**
 * The gateway writes its EMF lines itself (Powertools' per-invocation metric stores cost a
 * tenth of a call's CPU). Powertools' Metrics, publishing the same records one dimension set at
 * a time as the gateway used to, is the oracle: the same lines, parsed, for any records.
 */

const TIMESTAMP = Date.now();

// Powertools warns of each empty dimension value it drops; the test makes them on purpose.
beforeAll(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
afterAll(() => jest.restoreAllMocks());

/** What Powertools writes for the records, one publish per dimension set, in first-seen order. */
function powertoolsLines(records: readonly MetricRecord[]): unknown[] {
  const written: string[] = [];
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'ai-gateway' });
  (metrics as unknown as { console: { log(line: string): void } }).console = { log: (line) => written.push(line) };
  const groups = new Map<string, MetricRecord[]>();
  for (const record of records) {
    const key = JSON.stringify(Object.entries(record.dimensions).sort(([a], [b]) => a.localeCompare(b)));
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  for (const group of groups.values()) {
    metrics.setTimestamp(TIMESTAMP);
    metrics.addDimensions({ ...group[0]!.dimensions });
    for (const record of group) metrics.addMetric(record.name, record.unit, record.value);
    metrics.publishStoredMetrics();
  }
  return written.map((line) => JSON.parse(line) as unknown);
}

const ours = (records: readonly MetricRecord[]) =>
  emfLines(records, TIMESTAMP).map((line) => JSON.parse(line) as unknown);

test('a call’s own figures: the lines Powertools writes', () => {
  const records = callMetrics('chat-completions', 200, 12);
  expect(ours(records)).toEqual(powertoolsLines(records));
  expect(ours(records)).toEqual([
    {
      _aws: {
        Timestamp: TIMESTAMP,
        CloudWatchMetrics: [
          {
            Namespace: 'AiGateway',
            Dimensions: [['service', 'route']],
            Metrics: [
              { Name: 'gateway.requests', Unit: 'Count' },
              { Name: 'gateway.requests.4xx', Unit: 'Count' },
              { Name: 'gateway.requests.5xx', Unit: 'Count' },
              { Name: 'gateway.request.duration', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      service: 'ai-gateway',
      route: 'chat-completions',
      'gateway.requests': 1,
      'gateway.requests.4xx': 0,
      'gateway.requests.5xx': 0,
      'gateway.request.duration': 12,
    },
    {
      _aws: {
        Timestamp: TIMESTAMP,
        CloudWatchMetrics: [
          {
            Namespace: 'AiGateway',
            Dimensions: [['service']],
            Metrics: [{ Name: 'gateway.request.duration', Unit: 'Milliseconds' }],
          },
        ],
      },
      service: 'ai-gateway',
      'gateway.request.duration': 12,
    },
  ]);
});

const record: fc.Arbitrary<MetricRecord> = fc.record({
  name: fc.constantFrom(...Object.values(METRIC)),
  unit: fc.constantFrom('Seconds', 'Milliseconds', 'Count', 'None'),
  value: fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e6, noNaN: true })),
  dimensions: fc.dictionary(fc.constantFrom(...Object.values(DIMENSION)), fc.constantFrom('a', 'b', 'gpt-5', ''), {
    maxKeys: 3,
  }),
});

test('any records: one line per dimension set, repeated names as lists, empty dimension values left out', () => {
  fc.assert(
    fc.property(fc.array(record, { maxLength: 12 }), (records) => {
      // Powertools refuses one name with two units in a line; the gateway never files one so.
      const unitOf = new Map<string, string>();
      const consistent = records.filter(
        (r) => (unitOf.get(r.name) ?? unitOf.set(r.name, r.unit).get(r.name)) === r.unit,
      );
      expect(ours(consistent)).toEqual(powertoolsLines(consistent));
    }),
  );
});

test('more than a line’s 100 metrics of one dimension set go out in several lines', () => {
  const many = Array.from({ length: 150 }, (_, i): MetricRecord => ({
    name: `m${i}`,
    unit: 'Count',
    value: i,
    dimensions: { route: 'r' },
  }));
  const lines = ours(many) as { _aws: { CloudWatchMetrics: { Metrics: unknown[] }[] } }[];
  expect(lines.map((line) => line._aws.CloudWatchMetrics[0]!.Metrics.length)).toEqual([100, 50]);
});

test('publishing a call’s figures reads no environment variable (Powertools’ stores read it at every access)', async () => {
  const { publishMetrics } = await import('../../../lambdas/observability/metrics.js');
  const written: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const env = process.env;
  let reads = 0;
  process.env = new Proxy(env, {
    get: (target, name) => {
      reads++;
      return Reflect.get(target, name) as unknown;
    },
  });
  try {
    publishMetrics(callMetrics('chat-completions', 200, 12));
  } finally {
    process.env = env;
    write.mockRestore();
  }
  expect(written.map((line) => (JSON.parse(line) as Record<string, unknown>)['route'])).toEqual([
    'chat-completions',
    undefined,
  ]);
  expect(reads).toBe(0);
});
