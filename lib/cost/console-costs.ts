import { AWS_PRICES } from './aws-prices.js';
import type { CostLine } from './table-costs.js';
import { ofType, type Template } from './template.js';

/**
 * The console's distribution and bucket (lib/constructs/console-distribution.ts), when the
 * template has them: nothing is paid while idle but the bucket's few stored bytes; each request
 * through the distribution pays CloudFront and its viewer-address function, and the console's own
 * page loads their path rewrite and, on a cache miss, an S3 read.
 */
export interface ConsoleAssumptions {
  /** Bytes the console's build stores (index.html and its hashed assets, old ones kept). */
  readonly storedBytes: number;
  /** Share of gateway requests made through the distribution (the console's calls). */
  readonly throughDistribution: number;
  /** Bytes a request through the distribution sends back (an API answer). */
  readonly answerBytes: number;
  /** Console page loads per million gateway requests, each fetching `filesPerLoad` files. */
  readonly pageLoadsPerMillion: number;
  readonly filesPerLoad: number;
  readonly bytesPerLoad: number;
  /** Share of file requests CloudFront does not have cached and reads from S3. */
  readonly missShare: number;
}

export const DEFAULT_CONSOLE: ConsoleAssumptions = Object.freeze({
  storedBytes: 2 * 1024 ** 2,
  // An upper bound: every request priced as if a browser made it through CloudFront. Backends
  // that call the execute-api URL or the custom domain pay none of it.
  throughDistribution: 1,
  answerBytes: 4_000,
  pageLoadsPerMillion: 10_000,
  filesPerLoad: 3,
  bytesPerLoad: 60_000,
  missShare: 0.1,
});

export function consoleDeployed(template: Template): boolean {
  return ofType(template, 'AWS::CloudFront::Distribution').length > 0;
}

export function consoleIdle(template: Template, a: ConsoleAssumptions = DEFAULT_CONSOLE): CostLine[] {
  if (!consoleDeployed(template)) return [];
  const gb = a.storedBytes / 1024 ** 3;
  return [
    {
      item: 'Console bucket storage',
      usd: gb * AWS_PRICES.s3.perGbMonthStandard,
      basis: `${(a.storedBytes / 1024 ** 2).toFixed(0)} MB of console build, S3 Standard`,
    },
  ];
}

export function consolePerMillion(template: Template, a: ConsoleAssumptions = DEFAULT_CONSOLE): CostLine[] {
  if (!consoleDeployed(template)) return [];
  const p = AWS_PRICES;
  const apiRequests = 1e6 * a.throughDistribution;
  const files = a.pageLoadsPerMillion * a.filesPerLoad;
  const bytesOut = apiRequests * a.answerBytes + a.pageLoadsPerMillion * a.bytesPerLoad;
  return [
    {
      item: 'CloudFront requests',
      usd: ((apiRequests + files) / 1e6) * p.cloudFront.perMillionHttpsRequests,
      basis: `${a.throughDistribution * 100}% of requests through the distribution, plus ${files.toLocaleString('en-US')} console files`,
    },
    {
      item: 'CloudFront data out',
      usd: (bytesOut / 1024 ** 3) * p.cloudFront.perGbOut,
      basis: `${a.answerBytes} bytes an answer, ${a.bytesPerLoad} bytes a console page load`,
    },
    {
      item: 'CloudFront Functions',
      usd: ((apiRequests + files) / 1e6) * p.cloudFront.perMillionFunctionInvocations,
      basis: `the viewer address on each API request, the path rewrite on each console file request (${a.pageLoadsPerMillion.toLocaleString('en-US')} page loads)`,
    },
    {
      item: 'S3 console reads',
      usd: ((files * a.missShare) / 1000) * p.s3.perThousandGets,
      basis: `${a.missShare * 100}% of console file requests missing CloudFront's cache`,
    },
  ];
}
