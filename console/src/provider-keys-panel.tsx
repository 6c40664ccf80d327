/** Provider keys, the caller's own upstream keys (docs/interface.md §4.7, §2.6): add, list (last 4), delete. */
import { useEffect, useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { formatDate } from './console-format';
import { Outcome, ScrollBox, SelectField, TextField } from './form-fields';

interface ProviderKey {
  readonly id: string;
  readonly provider: string;
  readonly slug: string;
  readonly displayName?: string | null;
  readonly apiKey: string;
  readonly createdAt: string;
}

const PROVIDERS = [
  ['openai', 'OpenAI'],
  ['anthropic', 'Anthropic'],
  ['google', 'Google'],
  ['xai', 'xAI'],
  ['openrouter', 'OpenRouter'],
] as const;

export function ProviderKeysPanel() {
  const [keys, setKeys] = useState<readonly ProviderKey[] | undefined>();
  const [provider, setProvider] = useState<string>('openai');
  const [slug, setSlug] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [confirming, setConfirming] = useState<string | undefined>();
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const load = () =>
    callApi<{ keys: ProviderKey[] }>('GET', '/api/v1/provider-keys').then(
      (data) => setKeys(data.keys),
      (failure) => setError(describeFailure(failure)),
    );
  useEffect(() => void load(), []);

  const add = async (event: Event) => {
    event.preventDefault();
    setError('');
    setDone('');
    try {
      await callApi('POST', '/api/v1/provider-keys', {
        body: { provider, slug, apiKey, ...(displayName.trim() ? { displayName: displayName.trim() } : {}) },
      });
      setDone(`Provider key ${slug} added.`);
      setSlug('');
      setDisplayName('');
      setApiKey('');
      await load();
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };

  const remove = async (key: ProviderKey) => {
    setError('');
    setDone('');
    try {
      await callApi('DELETE', `/api/v1/provider-keys/${encodeURIComponent(key.id)}`);
      setConfirming(undefined);
      setDone(`Provider key ${key.slug} deleted.`);
      await load();
    } catch (failure) {
      setError(describeFailure(failure));
    }
  };

  return (
    <section aria-labelledby="provider-keys-title" class="card">
      <h2 id="provider-keys-title">Provider keys</h2>
      <p class="hint">Your own upstream keys: the gateway uses them for your calls in place of its own.</p>
      <form onSubmit={add} class="inline-form" aria-label="Add a provider key">
        <SelectField label="Provider" value={provider} onChange={setProvider} options={PROVIDERS} />
        <TextField label="Slug" value={slug} onInput={setSlug} pattern="[a-z0-9\-]{2,50}" required />
        <TextField label="Display name" value={displayName} onInput={setDisplayName} />
        <TextField
          label="Provider API key"
          type="password"
          value={apiKey}
          onInput={setApiKey}
          autoComplete="off"
          required
        />
        <button type="submit">Add provider key</button>
      </form>
      <Outcome error={error} done={done} />
      {keys === undefined ? (
        <p aria-busy="true">Loading provider keys…</p>
      ) : keys.length === 0 ? (
        <p>No provider keys.</p>
      ) : (
        <ScrollBox label="Table of provider keys">
          <table>
            <caption class="visually-hidden">Provider keys</caption>
            <thead>
              <tr>
                <th scope="col">Slug</th>
                <th scope="col">Provider</th>
                <th scope="col">Key</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.displayName ? `${key.displayName} (${key.slug})` : key.slug}</td>
                  <td>{key.provider}</td>
                  <td>
                    <code>{key.apiKey}</code>
                  </td>
                  <td>{formatDate(key.createdAt)}</td>
                  <td>
                    {confirming === key.id ? (
                      <span role="alertdialog" aria-label={`Delete ${key.slug}`}>
                        <button type="button" class="danger" onClick={() => remove(key)}>
                          Delete {key.slug} for good
                        </button>
                        <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setConfirming(key.id)}
                        aria-label={`Delete ${key.slug}`}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}
