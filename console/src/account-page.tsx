/** The signed-in user's password change (docs/interface.md §5): every session ends, this one gets a new cookie. */
import { useState } from 'preact/hooks';
import { callApi, describeFailure } from './console-http';
import { Outcome, TextField } from './form-fields';

export function AccountPage({ onSignedOut }: { onSignedOut: () => void }) {
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
      else if (code === 'UNAUTHORIZED') onSignedOut();
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
        <TextField
          label="New password"
          type="password"
          value={newPassword}
          onInput={setNewPassword}
          autoComplete="new-password"
          hint="At least 12 characters with upper and lower case, a digit and a symbol."
          required
        />
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
    </>
  );
}
