/**
 * The request log (docs/interface.md §4.8.1): filters, pages by cursor (kept, so Back returns),
 * and a row's details.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { formatDate, formatUsd } from './console-format';
import { Outcome, ScrollBox, TextField } from './form-fields';

interface LoggedRequest {
  readonly id: string;
  readonly time: string;
  readonly route: string;
  readonly keyId: string | null;
  readonly model: string | null;
  readonly provider: string | null;
  readonly fallbackFrom: string | null;
  readonly attempts: number;
  readonly status: number;
  readonly outcome: string;
  readonly cached: boolean;
  readonly tokens: { prompt: number; completion: number; total: number };
  readonly cost: number;
  readonly priced: boolean;
  readonly latencyMs: number | null;
  readonly timeToFirstTokenMs: number | null;
  readonly sessionId?: string;
}

const FILTERS = ['from', 'to', 'keyId', 'model', 'route', 'status'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;
const NO_FILTERS: Filters = { from: '', to: '', keyId: '', model: '', route: '', status: '' };
const PAGE_SIZE = 25;

export function RequestsPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  /** Cursors of the pages before this one, and this one's. */
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ requests: LoggedRequest[]; nextCursor?: string } | undefined>();
  const [selected, setSelected] = useState<LoggedRequest | undefined>();
  const [error, setError] = useState('');

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    setError('');
    setPage(undefined);
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    for (const name of FILTERS) if (filters[name].trim()) query.set(name, filters[name].trim());
    if (cursor) query.set('cursor', cursor);
    callApi<{ requests: LoggedRequest[]; nextCursor?: string }>('GET', `/api/v1/requests?${query}`).then(
      setPage,
      (failure) => setError(describeFailure(failure)),
    );
  }, [filters, cursor]);

  const field = (name: keyof Filters, label: string, extra: Record<string, unknown> = {}) => (
    <TextField
      label={label}
      value={draft[name]}
      onInput={(value) => setDraft({ ...draft, [name]: value })}
      {...extra}
    />
  );

  return (
    <>
      <h1>Requests</h1>
      <form
        class="inline-form card"
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
          setCursors([undefined]);
        }}
      >
        {field('from', 'From', { type: 'date' })}
        {field('to', 'To', { type: 'date' })}
        {field('keyId', 'Key id', { placeholder: 'any' })}
        {field('model', 'Model', { placeholder: 'any' })}
        {field('route', 'Route', { placeholder: 'any' })}
        {field('status', 'Upstream status', { inputMode: 'numeric', placeholder: 'any' })}
        <button type="submit">Filter</button>
      </form>
      <Outcome error={error} />
      {page === undefined ? (
        <p aria-busy="true">Loading requests…</p>
      ) : page.requests.length === 0 ? (
        <p>No requests on this page.</p>
      ) : (
        <ScrollBox label="Table of requests">
          <table data-testid="request-log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Route</th>
                <th scope="col">Model</th>
                <th scope="col">Outcome</th>
                <th scope="col" class="number">
                  Tokens
                </th>
                <th scope="col" class="number">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {page.requests.map((row) => (
                <tr key={row.id} class={selected?.id === row.id ? 'selected' : undefined}>
                  <td>
                    <button type="button" class="link" onClick={() => setSelected(row)}>
                      {formatDate(row.time)}
                    </button>
                  </td>
                  <td>{row.route}</td>
                  <td>{row.model ?? '—'}</td>
                  <td>
                    {row.outcome} ({row.status})
                  </td>
                  <td class="number">{row.tokens.total}</td>
                  <td class="number">{formatUsd(row.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={cursors.length <= 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!page?.nextCursor}
          onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}
        >
          Older
        </button>
      </nav>
      {selected && <RequestDetail request={selected} onClose={() => setSelected(undefined)} />}
    </>
  );
}

function RequestDetail({ request, onClose }: { request: LoggedRequest; onClose: () => void }) {
  const facts: [string, string][] = [
    ['Request id', request.id],
    ['Started', formatDate(request.time)],
    ['Route', request.route],
    ['Key', request.keyId ?? 'none'],
    ['Model', request.model ?? '—'],
    ['Provider', request.provider ?? '—'],
    ['Fell back from', request.fallbackFrom ?? '—'],
    ['Attempts', String(request.attempts)],
    ['Upstream status', String(request.status)],
    ['Outcome', request.outcome],
    ['Cached', request.cached ? 'yes' : 'no'],
    ['Tokens', `${request.tokens.prompt} prompt + ${request.tokens.completion} completion = ${request.tokens.total}`],
    ['Cost', `${formatUsd(request.cost)}${request.priced ? '' : ' (a model had no price)'}`],
    ['Upstream time', request.latencyMs === null ? '—' : `${request.latencyMs} ms`],
    ['First token', request.timeToFirstTokenMs === null ? '—' : `${request.timeToFirstTokenMs} ms`],
    ...(request.sessionId ? ([['Arena session', request.sessionId]] as [string, string][]) : []),
  ];
  return (
    <section class="card detail" aria-labelledby="request-detail-title">
      <h2 id="request-detail-title">Request details</h2>
      <dl class="facts">
        {facts.map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
      <button type="button" class="secondary" onClick={onClose}>
        Close details
      </button>
    </section>
  );
}
