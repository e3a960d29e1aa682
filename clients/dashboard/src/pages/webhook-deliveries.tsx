import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { List, type Column } from '../components/list';
import { ErrorNote, Notice } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction } from '../hooks';
import type { WebhookAttempt, WebhookDelivery } from '../webhook-types';

/** The endpoint's deliveries, newest first, each with every attempt (status, time, duration, response excerpt) and a retry. */
export function Deliveries({ path, version, onRefresh }: { path: string; version: number; onRefresh: () => void }) {
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const retry = (d: WebhookDelivery, reload: () => void) =>
    void action.run(async () => {
      await api.post(`${path}/deliveries/${encodeURIComponent(d.id)}/retry`, {});
      setDone(`Another attempt of ${d.event_type} is queued. Refresh to see it.`);
      reload();
    });
  const columns: Column<WebhookDelivery>[] = [
    { label: 'Event', value: (d) => d.event_type, render: (d) => <code>{d.event_type}</code> },
    { label: 'Status', value: (d) => d.status, render: (d) => <span class={`badge badge-${d.status === 'delivered' ? 'succeeded' : d.status}`}>{d.status}</span> },
    { label: 'Created', value: (d) => d.created_at, render: (d) => formatDateTime(d.created_at) },
    { label: 'Next attempt', value: (d) => d.next_attempt_at, render: (d) => formatDateTime(d.next_attempt_at) },
    { label: 'Attempts', value: (d) => d.attempt_count, render: (d) => <Attempts delivery={d} /> },
  ];
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <p>
        <button type="button" class="secondary" onClick={onRefresh}>
          Refresh
        </button>
      </p>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorNote error={action.error} />
      <List<WebhookDelivery>
        title="Deliveries"
        path={`${path}/deliveries`}
        columns={columns}
        createdFilter={false}
        reloadKey={version}
        empty="No delivery yet. Send a test event."
        actions={(d, reload) => (
          <button type="button" class="secondary" disabled={action.busy} onClick={() => retry(d, reload)}>
            Retry
          </button>
        )}
      />
    </section>
  );
}

/** The badge's text: the HTTP status, else the error. An error that only repeats the status (`HTTP 500`) is not written twice. */
function outcome(a: WebhookAttempt): string {
  if (a.status_code !== null) return `HTTP ${a.status_code}`;
  return a.error ?? 'no answer';
}

/** Each attempt, oldest first: its time, status or error, duration, and the first 1 KiB of the answer. */
function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <span>None yet</span>;
  return (
    <details>
      <summary>
        {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}
      </summary>
      <ol class="attempts">
        {delivery.attempts.map((a, i) => (
          <li key={`${a.attempted_at}-${i}`}>
            <span class={`badge badge-${a.status_code !== null && a.status_code < 300 ? 'succeeded' : 'failed'}`}>{outcome(a)}</span> {formatDateTime(a.attempted_at)},{' '}
            {a.duration_ms} ms
            {a.status_code !== null && a.error && a.error !== outcome(a) ? ` (${a.error})` : ''}
            {a.response_body ? (
              <pre class="excerpt" aria-label="Response excerpt">
                {a.response_body}
              </pre>
            ) : null}
          </li>
        ))}
      </ol>
    </details>
  );
}
