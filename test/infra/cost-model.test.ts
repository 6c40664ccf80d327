import { costReport, idleMonthlyCost, perMillionRequests, total, type Template } from '../../lib/cost/cost-model.js';
import { AWS_PRICES } from '../../lib/cost/aws-prices.js';
import { build } from './support.js';

/** The operator's cost model (`npm run cost`) over the stack as synthesized. */
const template = build().template.toJSON() as Template;
const count = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type).length;
const line = (lines: ReturnType<typeof idleMonthlyCost>, item: string) => lines.find((l) => l.item === item);

test('idle cost counts what the template deploys: keys and secrets at their monthly prices', () => {
  const idle = idleMonthlyCost(template);
  expect(count('AWS::KMS::Key')).toBeGreaterThan(0);
  expect(line(idle, 'KMS customer managed keys')?.usd).toBe(count('AWS::KMS::Key') * AWS_PRICES.kms.perKeyMonth);
  expect(line(idle, 'Secrets Manager secrets')?.usd).toBeCloseTo(
    count('AWS::SecretsManager::Secret') * AWS_PRICES.secretsManager.perSecretMonth,
    9,
  );
  expect(total(idle)).toBeCloseTo(
    idle.reduce((sum, l) => sum + l.usd, 0),
    9,
  );
});

test('per million requests: Lambda compute follows the chat function memory in the template and the duration', () => {
  const chat = Object.entries(template.Resources).find(([id]) => id.startsWith('EndpointsChatCompletionsFunction'))!;
  const memoryMb = chat[1].Properties!['MemorySize'] as number;
  const at = (durationMs: number) =>
    line(
      perMillionRequests(template, { durationMs, writeUnits: 4, readUnits: 0, logBytes: 0, tracedShare: 0 }),
      'Lambda compute',
    )!;
  expect(at(1_000).usd).toBeCloseTo((memoryMb / 1024) * 1e6 * AWS_PRICES.lambda.perGbSecond, 6);
  expect(at(3_000).usd).toBeCloseTo(3 * at(1_000).usd, 6);
  const lines = perMillionRequests(template);
  expect(line(lines, 'API Gateway REST requests')?.usd).toBe(AWS_PRICES.apiGateway.perMillionRequests);
  // Every function traces actively, so X-Ray is on the bill.
  expect(line(lines, 'X-Ray traces')).toBeDefined();
});

test('the report prints both tables with their totals', () => {
  const report = costReport(template);
  expect(report).toContain('Idle cost per month (no traffic)');
  expect(report).toContain('Infrastructure cost per million gateway requests');
  expect(report.match(/^ {2}Total +\$\d+\.\d+$/gm)).toHaveLength(2);
});

test('a template without the chat completions function is refused with a clear message', () => {
  expect(() => perMillionRequests({ Resources: {} })).toThrow(/no chat completions function/);
});
