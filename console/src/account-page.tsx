/**
 * The signed-in user's password change and authenticator (docs/interface.md §5). A change of
 * password ends every session of the account, and this one gets a new cookie; with MFA on, it
 * and the authenticator's own changes take the app's current code.
 */
import { useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { NewPasswordField, Outcome, TextField } from './form-fields';

export function AccountPage() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const change = async (event: Event) => {
    event.preventDefault();
    setError('');
    setDone('');
    try {
      await callApi('POST', '/api/v1/auth/password', {
        quietUnauthorized: true,
        body: { currentPassword, newPassword, ...(needsCode ? { totpCode } : {}) },
      });
      setCurrentPassword('');
      setNewPassword('');
      setTotpCode('');
      setDone('Password changed. Other sessions were signed out; this one goes on.');
    } catch (failure) {
      const code = (failure as { code?: string }).code;
      if (code === 'MFA_REQUIRED' || code === 'INVALID_TOTP_CODE') setNeedsCode(true);
      setError(describeFailure(failure));
    }
  };

  return (
    <>
      <h1>Account</h1>
      <form class="card" onSubmit={change} aria-labelledby="password-title">
        <h2 id="password-title">Change password</h2>
        <TextField
          label="Current password"
          type="password"
          value={currentPassword}
          onInput={setCurrentPassword}
          autoComplete="current-password"
          required
        />
        <NewPasswordField value={newPassword} onInput={setNewPassword} />
        {needsCode && (
          <TextField
            label="Authenticator code"
            value={totpCode}
            onInput={setTotpCode}
            autoComplete="one-time-code"
            inputMode="numeric"
            required
          />
        )}
        <button type="submit">Change password</button>
        <Outcome error={error} done={done} />
      </form>
      <AuthenticatorPanel />
    </>
  );
}

interface Setup {
  readonly secret: string;
  readonly otpauthUri: string;
}

function AuthenticatorPanel() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [setup, setSetup] = useState<Setup | undefined>();
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const send = async (method: 'POST' | 'DELETE', body: Record<string, unknown>, then: (answer: unknown) => void) => {
    setError('');
    setDone('');
    try {
      then(await callApi(method, '/api/v1/auth/mfa', { quietUnauthorized: true, body }));
      setTotpCode('');
      setCurrentPassword('');
    } catch (failure) {
      const code = (failure as { code?: string }).code;
      if (code === 'MFA_REQUIRED' || code === 'INVALID_TOTP_CODE') setNeedsCode(true);
      setError(describeFailure(failure));
    }
  };
  const withCode = () => (needsCode && totpCode ? { totpCode } : {});

  const begin = (event: Event) => {
    event.preventDefault();
    void send('POST', { currentPassword, ...withCode() }, (answer) => {
      setSetup((answer as { setup: Setup }).setup);
      setNeedsCode(false);
    });
  };
  const confirm = (event: Event) => {
    event.preventDefault();
    void send('POST', { totpCode }, () => {
      setSetup(undefined);
      setDone('Authenticator added: sign-ins now ask for its code.');
    });
  };
  const turnOff = () =>
    void send('DELETE', { currentPassword, totpCode }, () => {
      setNeedsCode(false);
      setDone('Authenticator removed: sign-ins ask for the password only.');
    });

  return (
    <section class="card" aria-labelledby="mfa-title">
      <h2 id="mfa-title">Authenticator (MFA)</h2>
      {setup ? (
        <form onSubmit={confirm} aria-label="Confirm the authenticator">
          <p>
            Add this secret to your authenticator app (or open the link on the phone that holds it), then enter the code
            it shows.
          </p>
          <p>
            <code class="secret" data-testid="mfa-secret">
              {setup.secret}
            </code>
          </p>
          <p>
            <a href={setup.otpauthUri}>Open in an authenticator app</a>
          </p>
          <TextField
            label="Code from the app"
            value={totpCode}
            onInput={setTotpCode}
            autoComplete="one-time-code"
            inputMode="numeric"
            required
          />
          <button type="submit">Turn on MFA</button>
        </form>
      ) : (
        <form onSubmit={begin} aria-label="Add an authenticator">
          <TextField
            label="Password for the authenticator"
            type="password"
            value={currentPassword}
            onInput={setCurrentPassword}
            autoComplete="current-password"
            required
          />
          <TextField
            label="Current authenticator code (when MFA is on)"
            value={totpCode}
            onInput={(value) => {
              setTotpCode(value);
              setNeedsCode(value !== '');
            }}
            autoComplete="one-time-code"
            inputMode="numeric"
          />
          <button type="submit">Add an authenticator</button>{' '}
          <button type="button" class="secondary" onClick={turnOff}>
            Turn MFA off
          </button>
        </form>
      )}
      <Outcome error={error} done={done} />
    </section>
  );
}
