import { readFileSync } from 'node:fs';
import { ADOT_LAYER_OTEL_API_VERSION } from '../../../lib/constructs/open-telemetry-layer.js';

/**
 * The functions bundle their own `@opentelemetry/api`; it finds the tracer provider the
 * OpenTelemetry layer registers (with the API the layer bundles) only when its minor version is
 * not newer than the layer's: the API's global accepts a registration from the same major and an
 * equal or later minor. A newer API here would leave every function silently untraced.
 */
const minorOf = (version: string) => {
  const match = /^(\d+)\.(\d+)\./.exec(version);
  if (!match) throw new Error(`not a version: ${version}`);
  return { major: Number(match[1]), minor: Number(match[2]) };
};
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

test("the API the functions bundle is not newer than the layer's", () => {
  const layer = minorOf(ADOT_LAYER_OTEL_API_VERSION);
  const installed = minorOf(read('../../../node_modules/@opentelemetry/api/package.json').version);
  expect(installed.major).toBe(layer.major);
  expect(installed.minor).toBeLessThanOrEqual(layer.minor);
});

test('package.json cannot let the API move to a newer minor', () => {
  const range: string = read('../../../package.json').dependencies['@opentelemetry/api'];
  // Only an exact version or a tilde range keeps the minor where it is.
  expect(range).toMatch(/^~?\d+\.\d+\.\d+$/);
  expect(minorOf(range.replace(/^~/, '')).minor).toBeLessThanOrEqual(minorOf(ADOT_LAYER_OTEL_API_VERSION).minor);
});
