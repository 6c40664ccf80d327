/**
 * Sign-in with the dashboard session (docs/interface.md §5): the password, then what the gateway
 * asks for next — a new password in place of a temporary one, the authenticator's code, or an
 * authenticator set-up when the deployment requires MFA.
 */
import { useState } from 'preact/hooks';
import { ApiFailure, callApi, describeFailure } from './console-http';
import { NewPasswordField, TextField } from './form-fields';

/** Who is signed in: the sign-in's answer, and `GET /api/v1/auth/session`'s. */
export interface SignedIn {
  readonly accountId: string;
  readonly email: string;
  readonly name?: string | null;
}

interface MfaSetup {
  readonly secret: string;
  readonly otpauthUri: string;
}

export function SignInForm({ onSignedIn }: { onSignedIn: (session: SignedIn) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [needs, setNeeds] = useState<{ newPassword?: boolean; totp?: boolean; setup?: MfaSetup }>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const answer = await callApi<SignedIn | { mfaSetup: MfaSetup }>('POST', '/api/v1/auth/login', {
        quietUnauthorized: true,
        body: {
          email,
          password,
          ...(needs.newPassword ? { newPassword } : {}),
          ...(needs.totp || needs.setup ? { totpCode } : {}),
        },
      });
      if ('mfaSetup' in answer) {
        setNeeds((now) => ({ ...now, setup: answer.mfaSetup }));
        return;
      }
      onSignedIn(answer);
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'PASSWORD_CHANGE_REQUIRED')
        setNeeds((now) => ({ ...now, newPassword: true }));
      else if (failure instanceof ApiFailure && failure.code === 'MFA_REQUIRED')
        setNeeds((now) => ({ ...now, totp: true }));
      setError(describeFailure(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <TextField label="E-mail" type="email" value={email} onInput={setEmail} autoComplete="username" required />
      <TextField
        label="Password"
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete="current-password"
        required
      />
      {needs.newPassword && <NewPasswordField value={newPassword} onInput={setNewPassword} />}
      {needs.setup && (
        <div class="setup">
          <p>Add this secret to your authenticator app, then enter the code it shows.</p>
          <p>
            <code class="secret">{needs.setup.secret}</code>
          </p>
        </div>
      )}
      {(needs.totp || needs.setup) && (
        <TextField
          label="Authenticator code"
          value={totpCode}
          onInput={setTotpCode}
          autoComplete="one-time-code"
          inputMode="numeric"
          pattern="[0-9]{6}"
          required
        />
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
