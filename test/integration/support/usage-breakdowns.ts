/** The figures of one `byModel`, `byRoute` or `byKey` entry of a usage report. */
interface Figures {
  requests: number;
  tokens: number;
  cost: number;
}

export interface UsageReportData {
  totalRequests: number;
  totalTokens: number;
  totalCost: number;
  byModel: Record<string, Figures>;
  byRoute: Record<string, Figures>;
  byKey: Record<string, Figures>;
}

/** Costs in micro-USD, as the ledger sums them, so the comparison is exact. */
const micro = (usd: number) => Math.round(usd * 1e6);

const totalsOf = (report: UsageReportData) => ({
  requests: report.totalRequests,
  tokens: report.totalTokens,
  micro: micro(report.totalCost),
});

const sumOf = (parts: Record<string, Figures>) => {
  const values = Object.values(parts);
  return {
    requests: values.reduce((sum, part) => sum + part.requests, 0),
    tokens: values.reduce((sum, part) => sum + part.tokens, 0),
    micro: values.reduce((sum, part) => sum + micro(part.cost), 0),
  };
};

/** `byModel`, `byRoute` and `byKey` are three splits of the same usage: each adds up to the totals. */
export function expectBreakdownsSumToTotals(report: UsageReportData): void {
  expect(sumOf(report.byModel)).toEqual(totalsOf(report));
  expect(sumOf(report.byRoute)).toEqual(totalsOf(report));
  expect(sumOf(report.byKey)).toEqual(totalsOf(report));
}
