import { AWS_PRICES } from './aws-prices.js';
import { definitionOf, loopWaitSeconds, pollingLoop, transitionsFor } from './state-machine.js';
import { gigabytes, readable, type CostLine } from './table-costs.js';
import { numberProperty, resourceById, type Template } from './template.js';

/**
 * What the usage exports for finance (docs/finance.md) cost a month: the daily incremental
 * export of the usage table, its objects in S3, the machine that runs it, and Athena queries
 * over the exports. The template gives the export machine's loop and the workgroup's
 * bytes-scanned limit; the traffic and the size of what is exported are assumptions.
 */

export interface ExportAssumptions {
  readonly requestsPerMonth: number;
  /** The default schedule exports every day. */
  readonly exportsPerMonth: number;
  /** Ledger entries a request writes: one per upstream attempt or cache hit (a chat completion: one). */
  readonly ledgerEntriesPerRequest: number;
  /** A ledger item as DynamoDB sizes it (a chat completion's: 477 bytes, measured with usage-items.ts). */
  readonly ledgerItemBytes: number;
  /**
   * Each entry's transaction rewrites its day total: a change the export processes too, though
   * only the day's last image of the total is written out.
   */
  readonly dayTotalBytes: number;
  /**
   * One exported ledger line as it is stored and scanned: DynamoDB JSON, gzipped (a chat
   * completion's line is 990 bytes, about 100 gzipped, measured with export-format.ts).
   */
  readonly storedBytesPerEntry: number;
  /** Objects an export writes: data files, manifests and its start marker. */
  readonly objectsPerExport: number;
  /** How long an export of a day runs: the machine checks it once per wait until it is done. */
  readonly exportMinutes: number;
  readonly athenaQueriesPerMonth: number;
  /** Months of exports a query reads: `usage_incremental` is partitioned by day, so a query reads its range only. */
  readonly monthsScanned: number;
}

export const DEFAULT_EXPORTS: ExportAssumptions = Object.freeze({
  requestsPerMonth: 1_000_000,
  exportsPerMonth: 30,
  ledgerEntriesPerRequest: 1,
  ledgerItemBytes: 500,
  dayTotalBytes: 300,
  storedBytesPerEntry: 150,
  objectsPerExport: 10,
  exportMinutes: 15,
  athenaQueriesPerMonth: 30,
  monthsScanned: 1,
});

export const USAGE_EXPORT_MACHINE = /^UsageExportsScheduleStateMachine[0-9A-F]{8}$/;
export const USAGE_WORKGROUP = /^UsageExportsCatalogWorkGroup[0-9A-F]{8}$/;

const MB = 1024 ** 2;
const TB = 1024 ** 4;

/** What Athena may scan per query before the workgroup cancels it; Infinity without a limit. */
export function bytesScannedCutoff(template: Template): number {
  const [, workgroup] = resourceById(
    template,
    USAGE_WORKGROUP,
    'usage Athena workgroup (UsageExportsCatalogWorkGroup…)',
  );
  return numberProperty(workgroup, 'WorkGroupConfiguration', 'BytesScannedCutoffPerQuery') ?? Infinity;
}

/** States the export machine enters per export: its loop, from the definition, polled until the export is done. */
export function transitionsPerExport(template: Template, exportMinutes: number): number {
  const [, machine] = resourceById(
    template,
    USAGE_EXPORT_MACHINE,
    'usage export state machine (UsageExportsSchedule…)',
  );
  const definition = definitionOf(machine);
  const run = pollingLoop(definition);
  const waitSeconds = loopWaitSeconds(definition, run);
  if (waitSeconds === undefined) throw new Error('the usage export machine has no fixed wait between checks');
  return transitionsFor(run, Math.max(1, Math.ceil((exportMinutes * 60) / waitSeconds)));
}

/** The month's export, storage and query costs at `requestsPerMonth`. */
export function financeExportsPerMonth(template: Template, a: ExportAssumptions = DEFAULT_EXPORTS): CostLine[] {
  const p = AWS_PRICES;
  const entries = a.requestsPerMonth * a.ledgerEntriesPerRequest;
  const changedPerExport = (entries * (a.ledgerItemBytes + a.dayTotalBytes)) / a.exportsPerMonth;
  const billedPerExport = Math.max(changedPerExport, p.dynamodb.minimumBytesPerIncrementalExport);
  const storedPerMonth = entries * a.storedBytesPerEntry;
  const cutoff = bytesScannedCutoff(template);
  const scanned = Math.min(a.monthsScanned * storedPerMonth, cutoff);
  const billedScan = Math.max(scanned, p.athena.minimumBytesPerQuery);
  const objectsScanned = a.monthsScanned * a.exportsPerMonth * a.objectsPerExport;
  const transitions = transitionsPerExport(template, a.exportMinutes);
  return [
    {
      item: 'DynamoDB incremental exports',
      usd: ((a.exportsPerMonth * billedPerExport) / 1024 ** 3) * p.dynamodb.perGbIncrementalExport,
      basis: `${a.exportsPerMonth} × ${readable(Math.round((10 * billedPerExport) / MB) / 10)} MB of changes (ledger entries, day totals)`,
    },
    {
      item: 'S3 PUT requests',
      usd: ((a.exportsPerMonth * a.objectsPerExport) / 1000) * p.s3.perThousandPuts,
      basis: `${a.objectsPerExport} objects an export`,
    },
    {
      item: 'S3 storage, per month kept',
      usd: (storedPerMonth / 1024 ** 3) * p.s3.perGbMonthStandard,
      basis: `${gigabytes(storedPerMonth)} gzipped; every month kept adds as much (IA after 90 days)`,
    },
    {
      item: 'Athena queries',
      usd: a.athenaQueriesPerMonth * (billedScan / TB) * p.athena.perTbScanned,
      basis:
        `${a.athenaQueriesPerMonth} × ${gigabytes(billedScan)} (${a.monthsScanned} months of exports; ` +
        `the workgroup stops a query at ${Number.isFinite(cutoff) ? gigabytes(cutoff) : 'no limit'})`,
    },
    {
      item: 'S3 GET requests (Athena)',
      usd: ((a.athenaQueriesPerMonth * objectsScanned) / 1000) * p.s3.perThousandGets,
      basis: `${readable(objectsScanned)} objects a query`,
    },
    {
      item: 'Step Functions (export machine)',
      usd: ((a.exportsPerMonth * transitions) / 1000) * p.stepFunctions.perThousandStandardTransitions,
      basis: `${transitions} an export (checked every wait for ${a.exportMinutes} minutes)`,
    },
  ];
}
