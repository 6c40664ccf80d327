/**
 * Usage (docs/interface.md §4.8, §2.7): a range, its totals, the breakdowns by model, route and
 * key, a bar per day (usage-chart.tsx), spend against the account's and the keys' budgets, the
 * account's budget webhook (budget-webhook-form.tsx) and the secret that signs its events
 * (webhook-secret-panel.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { daysBefore, formatCount, formatUsd, isoDay } from './console-format';
import { Outcome, ScrollBox, SelectField, TextField } from './form-fields';
import { PERIODS, type ApiKey, type KeyBudget } from './keys-page';
import { UsageChart, type ChartBar } from './usage-chart';
import { BudgetWebhookForm } from './budget-webhook-form';
import { WebhookSecretPanel } from './webhook-secret-panel';

interface Figures {
  readonly requests: number;
  readonly tokens: number;
  readonly cost: number;
}

interface UsageRecord {
  readonly totalRequests: number;
  readonly totalTokens: number;
  readonly totalCost: number;
  readonly from: string;
  readonly to: string;
  readonly byModel: Record<string, Figures>;
  readonly byRoute?: Record<string, Figures>;
  readonly byKey?: Record<string, Figures>;
}

/** At most this many bars: a longer range is drawn in spans of whole days. */
const MAX_BARS = 31;
/** Day reads in flight at once: the session's 600 a minute is shared with the rest of the console. */
const PARALLEL_READS = 4;

export function UsagePage() {
  const [from, setFrom] = useState(() => daysBefore(6));
  const [to, setTo] = useState(() => isoDay(new Date()));
  const [record, setRecord] = useState<UsageRecord | undefined>();
  const [bars, setBars] = useState<readonly ChartBar[] | undefined>();
  const [keys, setKeys] = useState<readonly ApiKey[]>([]);
  const [error, setError] = useState('');

  const load = async (rangeFrom: string, rangeTo: string) => {
    setError('');
    setRecord(undefined);
    setBars(undefined);
    try {
      const query = `from=${rangeFrom}&to=${rangeTo}`;
      // Read side by side, so the totals and the chart describe the same moment as nearly as
      // they can: the totals trail new requests by a few seconds (docs/interface.md §4.8).
      const [usage, listed, daily] = await Promise.all([
        callApi<UsageRecord>('GET', `/api/v1/usage?${query}`),
        callApi<{ keys: ApiKey[] }>('GET', '/api/v1/keys'),
        dailyBars(rangeFrom, rangeTo),
      ]);
      setRecord(usage);
      setKeys(listed.keys);
      setBars(daily);
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };
  useEffect(() => void load(from, to), []);

  const preset = (days: number) => {
    const start = daysBefore(days - 1);
    const end = isoDay(new Date());
    setFrom(start);
    setTo(end);
    void load(start, end);
  };

  const keyName = (id: string) => (id === 'none' ? 'no key (console)' : (keys.find((k) => k.id === id)?.name ?? id));

  return (
    <>
      <h1>Usage</h1>
      <form
        class="inline-form card"
        aria-label="Range"
        onSubmit={(event) => {
          event.preventDefault();
          void load(from, to);
        }}
      >
        <TextField label="From (UTC day)" type="date" value={from} onInput={setFrom} required />
        <TextField label="To (UTC day, inclusive)" type="date" value={to} onInput={setTo} required />
        <button type="submit">Show</button>
        <span class="presets" role="group" aria-label="Quick ranges">
          <button type="button" class="secondary" onClick={() => preset(7)}>
            7 days
          </button>
          <button type="button" class="secondary" onClick={() => preset(30)}>
            30 days
          </button>
          <button type="button" class="secondary" onClick={() => preset(90)}>
            90 days
          </button>
        </span>
      </form>
      <Outcome error={error} />
      {record && (
        <section aria-labelledby="totals-title">
          <h2 id="totals-title">Totals</h2>
          <dl class="totals">
            <div>
              <dt>Requests</dt>
              <dd data-testid="total-requests">{formatCount(record.totalRequests)}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{formatCount(record.totalTokens)}</dd>
            </div>
            <div>
              <dt>Estimated cost</dt>
              <dd>{formatUsd(record.totalCost)}</dd>
            </div>
          </dl>
          <p class="hint">Requests reach these totals a few seconds after they end.</p>
        </section>
      )}
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">Cost and requests by day</h2>
        {bars ? <UsageChart bars={bars} /> : <p aria-busy="true">Loading the chart…</p>}
      </section>
      {record && (
        <div class="breakdowns">
          <Breakdown title="By model" rows={record.byModel} />
          <Breakdown title="By route" rows={record.byRoute ?? {}} />
          <Breakdown title="By key" rows={record.byKey ?? {}} label={keyName} />
        </div>
      )}
      <BudgetsPanel keys={keys} />
      <WebhookSecretPanel />
    </>
  );
}

function Breakdown({
  title,
  rows,
  label = (name) => name,
}: {
  title: string;
  rows: Record<string, Figures>;
  label?: (name: string) => string;
}) {
  const entries = Object.entries(rows).sort((a, b) => b[1].cost - a[1].cost || b[1].requests - a[1].requests);
  return (
    <section class="card">
      <h2>{title}</h2>
      {entries.length === 0 ? (
        <p>Nothing in this range.</p>
      ) : (
        <ScrollBox label={`Table ${title.toLowerCase()}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="number">
                  Requests
                </th>
                <th scope="col" class="number">
                  Tokens
                </th>
                <th scope="col" class="number">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map(([name, figures]) => (
                <tr key={name}>
                  <th scope="row">{label(name)}</th>
                  <td class="number">{formatCount(figures.requests)}</td>
                  <td class="number">{formatCount(figures.tokens)}</td>
                  <td class="number">{formatUsd(figures.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

/** The range in spans of whole UTC days, at most MAX_BARS of them, each read as one usage record. */
async function dailyBars(from: string, to: string): Promise<ChartBar[]> {
  const first = Date.parse(`${from}T00:00:00Z`);
  const last = Date.parse(`${to}T00:00:00Z`);
  if (!(last >= first)) return [];
  const days = Math.round((last - first) / 86_400_000) + 1;
  const span = Math.ceil(days / MAX_BARS);
  const spans: { from: string; to: string }[] = [];
  for (let day = 0; day < days; day += span) {
    const start = new Date(first + day * 86_400_000);
    const end = new Date(first + Math.min(day + span - 1, days - 1) * 86_400_000);
    spans.push({ from: isoDay(start), to: isoDay(end) });
  }
  const bars: ChartBar[] = new Array(spans.length);
  let next = 0;
  const worker = async () => {
    while (next < spans.length) {
      const index = next++;
      const { from: spanFrom, to: spanTo } = spans[index]!;
      const usage = await callApi<UsageRecord>('GET', `/api/v1/usage?from=${spanFrom}&to=${spanTo}`);
      bars[index] = {
        label: spanFrom === spanTo ? spanFrom.slice(5) : `${spanFrom.slice(5)}–${spanTo.slice(5)}`,
        cost: usage.totalCost,
        requests: usage.totalRequests,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, spans.length) }, worker));
  return bars;
}

function BudgetsPanel({ keys }: { keys: readonly ApiKey[] }) {
  const [budget, setBudget] = useState<KeyBudget | null | undefined>();
  /** The webhook as first read: its form keeps it from then on (the budget's answers carry it unchanged). */
  const [webhookUrl, setWebhookUrl] = useState<string | null | undefined>();
  const [limit, setLimit] = useState('');
  const [period, setPeriod] = useState<string>('month');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const show = (value: KeyBudget | null) => {
    setBudget(value);
    setLimit(value ? String(value.limitUsd) : '');
    if (value) setPeriod(value.period);
  };
  useEffect(() => {
    callApi<{ budget: KeyBudget | null; webhookUrl: string | null }>('GET', '/api/v1/budget').then(
      (data) => {
        show(data.budget);
        setWebhookUrl(data.webhookUrl);
      },
      (failure) => setError(describeFailure(failure)),
    );
  }, []);
  const save = async (event: Event) => {
    event.preventDefault();
    setError('');
    setDone('');
    try {
      const data = await callApi<{ budget: KeyBudget | null }>('PATCH', '/api/v1/budget', {
        body: { budget: limit.trim() === '' ? null : { limitUsd: Number(limit), period } },
      });
      show(data.budget);
      setDone(data.budget ? 'Account budget saved.' : 'Account budget removed.');
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };
  const budgeted = keys.filter((key) => key.budget);
  return (
    <section aria-labelledby="budgets-title" class="card">
      <h2 id="budgets-title">Budgets</h2>
      <h3>Account</h3>
      {budget && <BudgetMeter label="Account" budget={budget} />}
      {budget === null && <p>The account has no budget: only each key's own applies.</p>}
      <form class="inline-form" onSubmit={save} aria-label="Account budget">
        <TextField
          label="Account budget (USD)"
          type="number"
          min={0.000001}
          step="any"
          value={limit}
          onInput={setLimit}
          hint="Empty: no account budget."
        />
        <SelectField label="Account budget period" value={period} onChange={setPeriod} options={PERIODS} />
        <button type="submit">Save budget</button>
      </form>
      <Outcome error={error} done={done} />
      <h3>Keys</h3>
      {budgeted.length === 0 ? (
        <p>No key has a budget (set one on the Keys page).</p>
      ) : (
        budgeted.map((key) => <BudgetMeter key={key.id} label={key.name} budget={key.budget!} />)
      )}
      <h3>Webhook</h3>
      {webhookUrl !== undefined && <BudgetWebhookForm initial={webhookUrl} />}
    </section>
  );
}

function BudgetMeter({ label, budget }: { label: string; budget: KeyBudget }) {
  const used = budget.spentUsd + budget.reservedUsd;
  const share = budget.limitUsd > 0 ? Math.min(1, used / budget.limitUsd) : 0;
  const period = PERIODS.find((p) => p[0] === budget.period)?.[1] ?? budget.period;
  return (
    <div class="meter-row">
      <span>
        {label}: {formatUsd(budget.spentUsd)} spent
        {budget.reservedUsd > 0 ? ` (+${formatUsd(budget.reservedUsd)} reserved)` : ''} of {formatUsd(budget.limitUsd)}{' '}
        {period}
        {budget.resetsAt ? `, resets ${budget.resetsAt.slice(0, 10)}` : ''}
      </span>
      <meter min={0} max={1} low={0.5} high={0.8} optimum={0} value={share} aria-label={`${label} budget used`}>
        {Math.round(share * 100)}%
      </meter>
    </div>
  );
}
