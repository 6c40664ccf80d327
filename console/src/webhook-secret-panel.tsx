/**
 * The account's webhook signing secret (docs/interface.md §6.4), which signs its budget
 * webhook's events and its jobs' alike. Not read until the user asks (the first read makes it),
 * and dropped from the page when hidden; copy; rotation only after a confirmation that says every
 * receiver needs the new one.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { formatDate } from './console-format';
import { Outcome } from './form-fields';

interface SecretView {
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly previousExpiresAt: string | null;
}

export function WebhookSecretPanel() {
  const [view, setView] = useState<SecretView | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  // The confirmation takes the focus to its safe choice, and gives it back to Rotate when it
  // closes; in the same frame (a layout effect), so no keystroke lands on the page's body.
  const keepButton = useRef<HTMLButtonElement>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useLayoutEffect(() => {
    if (confirming) keepButton.current?.focus();
    else if (wasConfirming.current) rotateButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const fetchSecret = async (method: 'GET' | 'POST', path: string, doneText: string) => {
    setError('');
    setDone('');
    setBusy(true);
    try {
      setView(await callApi<SecretView>(method, path));
      setCopied(false);
      setConfirming(false);
      setDone(doneText);
    } catch (failure) {
      setError(describeFailure(failure));
    } finally {
      setBusy(false);
    }
  };
  const reveal = () => void fetchSecret('GET', '/api/v1/webhooks/secret', '');
  const rotate = () =>
    void fetchSecret(
      'POST',
      '/api/v1/webhooks/secret/rotate',
      'New secret made. Give it to every receiver: the previous one stops signing in 24 hours.',
    );
  const hide = () => {
    setView(undefined);
    setCopied(false);
    setDone('');
  };
  const copy = async () => {
    if (!view) return;
    try {
      await navigator.clipboard.writeText(view.secret);
      setCopied(true);
    } catch {
      setError('The browser refused the clipboard: select the secret and copy it by hand.');
    }
  };

  return (
    <section class="card" aria-labelledby="webhook-secret-title">
      <h2 id="webhook-secret-title">Webhook signing secret</h2>
      <p>
        It signs every event the gateway posts: budget crossings, and the end of a video or fashion job submitted with a{' '}
        <code>webhook_url</code>. A receiver verifies an event as Standard Webhooks describes:
      </p>
      <ol>
        <li>
          HMAC-SHA256 over <code>{'<webhook-id>.<webhook-timestamp>.<body>'}</code> (the two headers and the raw body as
          received, before any parsing), keyed by the bytes the base64 after <code>whsec_</code> decodes to;
        </li>
        <li>
          the event is genuine when that digest in base64 equals any <code>v1,</code> value of the space-separated{' '}
          <code>webhook-signature</code> header, and fresh when <code>webhook-timestamp</code> is within 5 minutes;
        </li>
        <li>
          <code>webhook-id</code> is the same on every retry: use it to drop repeats.
        </li>
      </ol>
      {view ? (
        <>
          <p>
            <code class="secret" data-testid="webhook-secret">
              {view.secret}
            </code>
          </p>
          {view.previousSecret && view.previousExpiresAt && (
            <p>
              The previous secret signs too, beside this one, until {formatDate(view.previousExpiresAt)}: a receiver not
              yet updated keeps verifying until then.
            </p>
          )}
          <div class="actions">
            <button type="button" onClick={copy}>
              {copied ? 'Copied' : 'Copy secret'}
            </button>
            <button type="button" class="secondary" onClick={hide}>
              Hide secret
            </button>
            <button ref={rotateButton} type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
              Rotate secret
            </button>
          </div>
        </>
      ) : (
        <div class="actions">
          <button type="button" disabled={busy} onClick={reveal}>
            Reveal secret
          </button>
          <button ref={rotateButton} type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Rotate secret
          </button>
        </div>
      )}
      {confirming && (
        <div class="confirm" role="alertdialog" aria-label="Rotate the webhook secret">
          <p>
            Make a new signing secret? Every receiver (the budget webhook's and your jobs') must be updated with it. The
            current secret keeps signing beside it for 24 hours; after that, a receiver that still checks it refuses
            every event.
          </p>
          <button type="button" class="danger" disabled={busy} onClick={rotate}>
            Rotate for good
          </button>
          <button ref={keepButton} type="button" class="secondary" onClick={() => setConfirming(false)}>
            Keep the current secret
          </button>
        </div>
      )}
      <Outcome error={error} done={done} />
    </section>
  );
}
