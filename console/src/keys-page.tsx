/**
 * API keys (docs/interface.md §4.6, §2.5): create (the secret shown once, with copy), list, and
 * per key rename, rate limit, budget, disable or enable, revoke after a confirmation. Provider
 * keys below (provider-keys-panel.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { formatDate, formatUsd } from './console-format';
import { Outcome, SelectField, TextField } from './form-fields';
import { ProviderKeysPanel } from './provider-keys-panel';

export interface KeyBudget {
  readonly limitUsd: number;
  readonly period: 'day' | 'month' | 'total';
  readonly spentUsd: number;
  readonly reservedUsd: number;
  readonly resetsAt: string | null;
}

export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly enabled: boolean;
  readonly rateLimit: number;
  readonly type?: 'secret' | 'publishable';
  readonly maskedKey?: string;
  readonly budget?: KeyBudget | null;
}

export const PERIODS = [
  ['day', 'per day'],
  ['month', 'per month'],
  ['total', 'in total'],
] as const;

export function KeysPage() {
  const [keys, setKeys] = useState<readonly ApiKey[] | undefined>();
  const [error, setError] = useState('');
  const load = () =>
    callApi<{ keys: ApiKey[] }>('GET', '/api/v1/keys').then(
      (data) => setKeys(data.keys),
      (failure) => setError(describeFailure(failure)),
    );
  useEffect(() => void load(), []);

  return (
    <>
      <h1>Keys</h1>
      <CreateKeyForm onCreated={load} />
      <section aria-labelledby="key-list-title">
        <h2 id="key-list-title">Your API keys</h2>
        <Outcome error={error} />
        {keys === undefined ? (
          <p aria-busy="true">Loading keys…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <ul class="rows">
            {keys.map((key) => (
              <KeyRow key={key.id} apiKey={key} onChanged={load} />
            ))}
          </ul>
        )}
      </section>
      <ProviderKeysPanel />
    </>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [rateLimit, setRateLimit] = useState('');
  const [created, setCreated] = useState<{ key: string; name: string } | undefined>();
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    setError('');
    try {
      const answer = await callApi<{ key: string; name: string }>('POST', '/api/v1/keys', {
        body: { ...(name.trim() ? { name: name.trim() } : {}), ...(rateLimit ? { rateLimit: Number(rateLimit) } : {}) },
      });
      setCreated(answer);
      setCopied(false);
      setName('');
      setRateLimit('');
      onCreated();
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      setError('The browser refused the clipboard: select the key and copy it by hand.');
    }
  };

  return (
    <section aria-labelledby="create-key-title" class="card">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} class="inline-form">
        <TextField label="Name" value={name} onInput={setName} placeholder="Default" maxLength={100} />
        <TextField
          label="Rate limit (requests a minute)"
          type="number"
          min={1}
          max={10000}
          value={rateLimit}
          onInput={setRateLimit}
          placeholder="600"
        />
        <button type="submit">Create key</button>
      </form>
      <Outcome error={error} />
      {created && (
        <div class="created" role="status">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now: it is shown this once.
          </p>
          <p>
            <code class="secret" data-testid="new-key">
              {created.key}
            </code>
          </p>
          <button type="button" onClick={copy}>
            {copied ? 'Copied' : 'Copy key'}
          </button>
          <button type="button" class="secondary" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
    </section>
  );
}

function KeyRow({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState('');
  const act = async (method: 'PATCH' | 'DELETE', body?: unknown) => {
    setError('');
    try {
      await callApi(method, `/api/v1/keys/${encodeURIComponent(apiKey.id)}`, { body });
      setEditing(false);
      setConfirming(false);
      onChanged();
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };
  const budget = apiKey.budget;
  return (
    <li class="row" aria-label={`Key ${apiKey.name}`}>
      <div class="row-head">
        <strong class="key-name">{apiKey.name}</strong>
        <code>{apiKey.maskedKey ?? apiKey.id}</code>
        <span class={apiKey.enabled ? 'badge ok' : 'badge off'}>{apiKey.enabled ? 'enabled' : 'disabled'}</span>
        {apiKey.type === 'publishable' && <span class="badge">publishable</span>}
      </div>
      <dl class="facts">
        <dt>Created</dt>
        <dd>{formatDate(apiKey.createdAt)}</dd>
        <dt>Rate limit</dt>
        <dd>{apiKey.rateLimit} a minute</dd>
        <dt>Budget</dt>
        <dd>
          {budget
            ? `${formatUsd(budget.spentUsd)} of ${formatUsd(budget.limitUsd)} ${PERIODS.find((p) => p[0] === budget.period)?.[1]}`
            : 'none'}
        </dd>
      </dl>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit
        </button>
        <button type="button" class="secondary" onClick={() => act('PATCH', { enabled: !apiKey.enabled })}>
          {apiKey.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Revoke
        </button>
      </div>
      {confirming && (
        <div class="confirm" role="alertdialog" aria-label={`Revoke ${apiKey.name}`}>
          <p>Revoke {apiKey.name} for good? Calls with it will be refused at once.</p>
          <button type="button" class="danger" onClick={() => act('DELETE')}>
            Revoke for good
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      {editing && <KeyEditor apiKey={apiKey} onSave={(changes) => act('PATCH', changes)} />}
      <Outcome error={error} />
    </li>
  );
}

function KeyEditor({ apiKey, onSave }: { apiKey: ApiKey; onSave: (changes: Record<string, unknown>) => void }) {
  const [name, setName] = useState(apiKey.name);
  const [rateLimit, setRateLimit] = useState(String(apiKey.rateLimit));
  const [limit, setLimit] = useState(apiKey.budget ? String(apiKey.budget.limitUsd) : '');
  const [period, setPeriod] = useState<string>(apiKey.budget?.period ?? 'month');
  const save = (event: Event) => {
    event.preventDefault();
    const changes: Record<string, unknown> = {};
    if (name !== apiKey.name) changes['name'] = name;
    if (Number(rateLimit) !== apiKey.rateLimit) changes['rateLimit'] = Number(rateLimit);
    const budget = limit.trim() === '' ? null : { limitUsd: Number(limit), period };
    const before = apiKey.budget ? { limitUsd: apiKey.budget.limitUsd, period: apiKey.budget.period } : null;
    if (JSON.stringify(budget) !== JSON.stringify(before)) changes['budget'] = budget;
    onSave(changes);
  };
  return (
    <form class="editor" onSubmit={save} aria-label={`Edit ${apiKey.name}`}>
      <TextField label="Name" value={name} onInput={setName} maxLength={100} required />
      <TextField label="Rate limit" type="number" min={1} max={10000} value={rateLimit} onInput={setRateLimit} />
      <TextField
        label="Budget (USD)"
        type="number"
        min={0.000001}
        step="any"
        value={limit}
        onInput={setLimit}
        hint="Empty: no budget."
      />
      <SelectField label="Budget period" value={period} onChange={setPeriod} options={PERIODS} />
      <button type="submit">Save</button>
    </form>
  );
}
