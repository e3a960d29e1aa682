import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { ErrorNote } from './ui';

/**
 * A form that replaces a credential (roll an API key, rotate a webhook secret) after asking how many
 * hours, 0 to `max`, the current one keeps working; `submit` sends that number of hours.
 */
export function GraceHoursForm(props: {
  id: string;
  title: string;
  /** The heading's level: 2 on a page of its own, 3 inside a page's section. */
  level: 2 | 3;
  intro?: ComponentChildren;
  label: string;
  max: number;
  hint: ComponentChildren;
  submitLabel: string;
  submit: (hours: number) => Promise<void>;
  onCancel: () => void;
}) {
  const [hours, setHours] = useState('24');
  const action = useAction();
  const Heading = props.level === 2 ? 'h2' : 'h3';
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(() => props.submit(Number(hours)));
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby={`${props.id}-title`}>
      <Heading id={`${props.id}-title`}>{props.title}</Heading>
      {props.intro}
      <div class="field">
        <label for={`${props.id}-hours`}>{props.label}</label>
        <input
          id={`${props.id}-hours`}
          type="number"
          min={0}
          max={props.max}
          step={1}
          required
          value={hours}
          onInput={(e) => setHours(e.currentTarget.value)}
          aria-describedby={`${props.id}-hours-hint`}
        />
        <small id={`${props.id}-hours-hint`} class="hint">
          {props.hint}
        </small>
      </div>
      <ErrorNote error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          {props.submitLabel}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
