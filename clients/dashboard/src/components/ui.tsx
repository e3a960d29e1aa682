import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api/errors';

/** An error said aloud (role=alert) with the request id to quote. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="note note-error" role="alert">
      {describeError(error)}
    </p>
  );
}

/** A success or information line, announced politely. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="note note-ok" role="status">
      {children}
    </p>
  );
}

/** Whether a page title was shown already: the first one after a load is not focused (the skip link stays the first tab stop). */
let titleShown = false;

/** A page's title: focused after an in-app navigation, so a screen reader reads where it arrived. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const first = !titleShown;
    titleShown = true;
    if (!first && (document.activeElement === document.body || document.activeElement?.closest('nav'))) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} class="page-title">
      {children}
    </h1>
  );
}

/** A labelled field: the label is the input's, and a hint is tied to it by aria-describedby. */
export function Field(props: { label: string; id: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { label, id, hint, ...input } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} {...input} {...(hint ? { 'aria-describedby': `${id}-hint` } : {})} />
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/**
 * A password input: the current one (sign in, change it), or a new one of 12 to 128 characters, the
 * rule shown as its hint, followed by `note` when given.
 */
export function PasswordField(props: { label: string; id: string; kind: 'current' | 'new'; note?: string; value: string; onValue: (value: string) => void; name?: string }) {
  const isNew = props.kind === 'new';
  return (
    <Field
      label={props.label}
      id={props.id}
      type="password"
      name={props.name}
      autocomplete={isNew ? 'new-password' : 'current-password'}
      required
      {...(isNew ? { minLength: 12, maxLength: 128, hint: props.note ? `12 to 128 characters. ${props.note}` : '12 to 128 characters.' } : {})}
      value={props.value}
      onInput={(e) => props.onValue(e.currentTarget.value)}
    />
  );
}

/** A secret the server shows once (a key, a webhook secret, an invitation URL): a copy button and a warning. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title">{label}</h2>
      <p class="warning">This is shown once. Copy it now and keep it somewhere safe: it cannot be shown again.</p>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret-value">
          {value}
        </code>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" class="hint">
        {copied ? 'Copied to the clipboard.' : ''}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

/** A destructive action in two steps: the button, then "Confirm" or "Cancel" in its place. */
export function ConfirmButton({ label, confirmLabel, onConfirm, disabled }: { label: string; confirmLabel: string; onConfirm: () => void | Promise<void>; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  // Focus follows the swap: onto "Confirm" when asked, back onto the button after Cancel.
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (asked.current) triggerRef.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" ref={triggerRef} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirmLabel}>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Loading, error or the content. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}
