import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { List, type Column } from '../components/list';
import { ErrorNote, Field, PageTitle, SecretOnce } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction } from '../hooks';
import { href } from '../paths';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from '../webhook-types';

const COLUMNS: Column<WebhookEndpoint>[] = [
  { label: 'URL', value: (w) => w.url, render: (w) => <a href={href(`/webhooks/${encodeURIComponent(w.id)}`)}>{w.url}</a> },
  { label: 'Status', value: (w) => w.status, render: (w) => <span class={`badge badge-${w.status}`}>{w.status}</span> },
  { label: 'Events', value: (w) => w.event_types.join(' '), render: (w) => w.event_types.join(', ') },
  { label: 'Description', value: (w) => w.description ?? '' },
  { label: 'Created', value: (w) => w.created_at, render: (w) => formatDateTime(w.created_at) },
];

/** Webhook endpoints of the scope's app and environment: list, and add one (its secret shown once). */
export function WebhooksPage() {
  const [version, setVersion] = useState(0);
  const [created, setCreated] = useState<(WebhookEndpoint & { secret: string }) | null>(null);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      {created ? (
        <>
          <SecretOnce label={`Signing secret of ${created.url}`} value={created.secret} onDone={() => setCreated(null)} />
          <p>
            <a href={href(`/webhooks/${encodeURIComponent(created.id)}`)}>Open the endpoint to send a test event</a>
          </p>
        </>
      ) : null}
      <CreateForm
        onCreated={(w) => {
          setCreated(w);
          setVersion((v) => v + 1);
        }}
      />
      <h2>Endpoints</h2>
      <List<WebhookEndpoint> title="Webhook endpoints" path="/v1/webhook-endpoints" columns={COLUMNS} reloadKey={version} empty="No webhook endpoint yet." />
    </>
  );
}

function CreateForm({ onCreated }: { onCreated: (w: WebhookEndpoint & { secret: string }) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<string[]>([]);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { url, ...(description ? { description } : {}), ...(all ? {} : { event_types: types }) };
      const { data } = await api.post<{ data: WebhookEndpoint & { secret: string } }>('/v1/webhook-endpoints', body);
      setUrl('');
      setDescription('');
      onCreated(data);
    });
  };
  const toggle = (t: string, on: boolean) => setTypes((cur) => (on ? [...cur, t] : cur.filter((x) => x !== t)));
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add an endpoint</h2>
      <Field
        label="URL"
        id="webhook-url"
        type="url"
        required
        placeholder="https://example.com/webhooks"
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
        hint="Live mode needs https."
      />
      <Field label="Description (optional)" id="webhook-description" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <fieldset>
        <legend>Events to send</legend>
        <label class="inline">
          <input type="radio" name="webhook-events" checked={all} onChange={() => setAll(true)} /> Every event
        </label>{' '}
        <label class="inline">
          <input type="radio" name="webhook-events" checked={!all} onChange={() => setAll(false)} /> Only these:
        </label>
        {all ? null : (
          <div class="checks">
            {WEBHOOK_EVENT_TYPES.map((t) => (
              <label key={t}>
                <input type="checkbox" checked={types.includes(t)} onChange={(e) => toggle(t, e.currentTarget.checked)} />
                <code>{t}</code>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy || (!all && types.length === 0)}>
        Add the endpoint
      </button>
    </form>
  );
}
