import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import { ErrorNote, Loading, Notice } from '../components/ui';
import { useAction, useLoad } from '../hooks';

export interface SettingField {
  key: string;
  label: string;
  kind: 'text' | 'textarea' | 'integer' | 'color';
  min?: number;
  max?: number;
  hint?: string;
  /** Empty is sent as null (the field can be cleared). */
  nullable?: boolean;
}

type Values = Record<string, string>;

const toText = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** The PUT body: only the fields that changed, empty text as null, integers as numbers. */
export function changedBody(fields: SettingField[], before: Values, after: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    if (before[f.key] === after[f.key]) continue;
    const v = (after[f.key] ?? '').trim();
    body[f.key] = v === '' && f.nullable ? null : f.kind === 'integer' ? Number(v) : v;
  }
  return body;
}

/** One settings document (`GET` then `PUT` of /v1/settings/<name>) as a form; read-only when the role cannot write. */
export function SettingForm({ title, path, fields, writable }: { title: string; path: string; fields: SettingField[]; writable: boolean }) {
  const loaded = useLoad(() => api.get<{ data: Record<string, unknown> }>(path), [path]);
  const [before, setBefore] = useState<Values>({});
  const [values, setValues] = useState<Values>({});
  const [done, setDone] = useState(false);
  const action = useAction();
  useEffect(() => {
    if (!loaded.data) return;
    const v = Object.fromEntries(fields.map((f) => [f.key, toText(loaded.data!.data[f.key])]));
    setBefore(v);
    setValues(v);
  }, [loaded.data]);
  const id = path.replace(/[^a-z0-9]+/gi, '-');
  const submit = (e: Event) => {
    e.preventDefault();
    setDone(false);
    void action.run(async () => {
      const body = changedBody(fields, before, values);
      if (Object.keys(body).length > 0) await api.put(path, body);
      setDone(true);
      loaded.reload();
    });
  };
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {loaded.loading && !loaded.data ? <Loading what={title.toLowerCase()} /> : null}
      <ErrorNote error={loaded.error} />
      {loaded.data ? (
        <form class="panel" onSubmit={submit}>
          <fieldset disabled={!writable} class="bare">
            <legend class="visually-hidden">{title}</legend>
            {fields.map((f) => (
              <Input key={f.key} id={`${id}-${f.key}`} field={f} value={values[f.key] ?? ''} onValue={(v) => setValues({ ...values, [f.key]: v })} />
            ))}
          </fieldset>
          <ErrorNote error={action.error} />
          {done ? <Notice>{title} saved.</Notice> : null}
          {writable ? (
            <button type="submit" disabled={action.busy}>
              Save the {title.toLowerCase()}
            </button>
          ) : (
            <p class="hint">Your role can read these settings but not change them.</p>
          )}
        </form>
      ) : null}
    </section>
  );
}

function Input({ id, field, value, onValue }: { id: string; field: SettingField; value: string; onValue: (v: string) => void }) {
  const described = field.hint ? { 'aria-describedby': `${id}-hint` } : {};
  let control;
  if (field.kind === 'textarea') control = <textarea id={id} value={value} maxLength={field.max} onInput={(e) => onValue(e.currentTarget.value)} {...described} />;
  else if (field.kind === 'integer')
    control = (
      <input
        id={id}
        type="number"
        step={1}
        min={field.min}
        max={field.max}
        required={!field.nullable}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        {...described}
      />
    );
  else if (field.kind === 'color')
    control = <input id={id} type="text" pattern="#[0-9A-Fa-f]{6}" placeholder="#1F5FA8" value={value} onInput={(e) => onValue(e.currentTarget.value)} {...described} />;
  else control = <input id={id} type="text" maxLength={field.max} value={value} onInput={(e) => onValue(e.currentTarget.value)} {...described} />;
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {control}
      {field.hint ? (
        <small id={`${id}-hint`} class="hint">
          {field.hint}
        </small>
      ) : null}
    </div>
  );
}
