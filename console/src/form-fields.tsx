/**
 * Labelled inputs: every control the console shows has a visible label tied to it, and a field
 * the gateway refused says why beside itself (aria-invalid, the message in its description); and
 * the box wide tables scroll in.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface TextFieldProps {
  readonly label: string;
  readonly value: string;
  readonly onInput: (value: string) => void;
  readonly hint?: string;
  /** The gateway's refusal of this field's value (an `ApiFailure` naming it); empty or absent when none. */
  readonly error?: string;
  readonly type?: 'text' | 'email' | 'password' | 'number' | 'date' | 'url';
  readonly min?: number;
  readonly max?: number;
  readonly step?: string;
  readonly maxLength?: number;
  readonly placeholder?: string;
  readonly pattern?: string;
  readonly required?: boolean;
  readonly autoComplete?: string;
  readonly inputMode?: 'numeric' | 'text';
}

export function TextField({
  label,
  value,
  onInput,
  hint,
  error,
  type = 'text',
  inputMode,
  autoComplete,
  ...rest
}: TextFieldProps) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        // Preact types an input's attributes per `type`; these fields' attributes suit all six.
        type={type as 'text'}
        value={value}
        inputMode={inputMode}
        autocomplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
        {...rest}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

/** A new password's field, with the user pool's policy as its hint (sign-in and the account page). */
export function NewPasswordField({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <TextField
      label="New password"
      type="password"
      value={value}
      onInput={onInput}
      autoComplete="new-password"
      hint="At least 12 characters with upper and lower case, a digit and a symbol."
      required
    />
  );
}

export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [value: string, label: string])[];
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}>
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A failure or confirmation line, announced to screen readers. */
export function Outcome({ error, done }: { error?: string; done?: string }) {
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (done)
    return (
      <p class="done" role="status">
        {done}
      </p>
    );
  return null;
}

/**
 * A box that scrolls sideways when what it holds is wider than a phone: focusable and named, so
 * a keyboard can scroll it too.
 */
export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
