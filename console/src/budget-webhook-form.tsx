/**
 * The account's budget webhook (docs/interface.md §2.5, §6.4): the URL each threshold crossing of
 * the account's budget or a key's is POSTed to, signed. Its PATCH carries `webhookUrl` alone, as
 * the budget form's carries `budget` alone: the gateway keeps a member left out as it is, so
 * saving one never clears the other.
 */
import { useState } from 'preact/hooks';
import { ApiFailure, callApi, describeFailure } from './console-http';
import { Outcome, TextField } from './form-fields';

export function BudgetWebhookForm({ initial }: { initial: string | null }) {
  const [saved, setSaved] = useState(initial);
  const [url, setUrl] = useState(initial ?? '');
  const [fieldError, setFieldError] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);

  const send = async (webhookUrl: string | null) => {
    setFieldError('');
    setError('');
    setDone('');
    setBusy(true);
    try {
      const data = await callApi<{ webhookUrl: string | null }>('PATCH', '/api/v1/budget', { body: { webhookUrl } });
      setSaved(data.webhookUrl);
      setUrl(data.webhookUrl ?? '');
      setDone(data.webhookUrl ? 'Budget webhook saved.' : 'Budget webhook removed.');
    } catch (failure) {
      // The gateway's refusal of the URL itself goes beside the field; anything else below the form.
      if (failure instanceof ApiFailure && failure.field === 'webhookUrl') setFieldError(failure.message);
      else setError(describeFailure(failure));
    } finally {
      setBusy(false);
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    const text = url.trim();
    if (text === '' && saved === null) return;
    void send(text === '' ? null : text);
  };

  return (
    <>
      <p data-testid="budget-webhook-state">
        {saved ? (
          <>
            Crossings of 50, 80 and 100% are posted to <code>{saved}</code>.
          </>
        ) : (
          'No budget webhook: crossings are not posted anywhere.'
        )}
      </p>
      {/* noValidate: the gateway's policy (public https, a name not resolving to a private address) is the one to state. */}
      <form class="inline-form" onSubmit={save} aria-label="Budget webhook" noValidate>
        <TextField
          label="Webhook URL"
          type="url"
          value={url}
          onInput={(value) => {
            setUrl(value);
            setFieldError('');
          }}
          placeholder="https://hooks.example.com/budget"
          error={fieldError}
          hint="A public https URL. Empty: no webhook."
        />
        <button type="submit" disabled={busy}>
          Save webhook
        </button>
        {saved && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void send(null)}>
            Remove webhook
          </button>
        )}
      </form>
      <Outcome error={error} done={done} />
    </>
  );
}
