import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api/client';
import { GraceHoursForm } from '../components/grace-form';
import { ConfirmButton, ErrorNote, Loading, Notice, PageTitle, SecretOnce } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useLoad } from '../hooks';
import { href } from '../paths';
import type { WebhookEndpoint } from '../webhook-types';
import { Deliveries } from './webhook-deliveries';

/** One endpoint: its facts, the test action, enable or disable, rotate the secret, delete, and its deliveries. */
export function WebhookDetailPage({ id }: { id: string }) {
  const path = `/v1/webhook-endpoints/${encodeURIComponent(id)}`;
  const endpoint = useLoad(() => api.get<{ data: WebhookEndpoint }>(path), [path]);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const w = endpoint.data?.data;
  return (
    <>
      <p>
        <a href={href('/webhooks')}>← Webhooks</a>
      </p>
      <PageTitle>Webhook endpoint</PageTitle>
      {endpoint.loading && !w ? <Loading what="the endpoint" /> : null}
      <ErrorNote error={endpoint.error} />
      {w ? (
        <>
          <Facts w={w} />
          <Actions w={w} path={path} onChange={endpoint.reload} onTest={() => setDeliveriesVersion((v) => v + 1)} />
          <Deliveries path={path} version={deliveriesVersion} onRefresh={() => setDeliveriesVersion((v) => v + 1)} />
        </>
      ) : null}
    </>
  );
}

function Facts({ w }: { w: WebhookEndpoint }) {
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd>
        <code>{w.url}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <span class={`badge badge-${w.status}`}>{w.status}</span>
        {w.disabled_reason ? ` (${w.disabled_reason})` : ''}
      </dd>
      <dt>Events</dt>
      <dd>{w.event_types.join(', ')}</dd>
      <dt>Description</dt>
      <dd>{w.description ?? '—'}</dd>
      <dt>Created</dt>
      <dd>{formatDateTime(w.created_at)}</dd>
      {w.previous_secret_expires_at ? (
        <>
          <dt>Previous secret signs until</dt>
          <dd>{formatDateTime(w.previous_secret_expires_at)}</dd>
        </>
      ) : null}
      <dt>Id</dt>
      <dd>
        <code>{w.id}</code>
      </dd>
    </dl>
  );
}

function Actions({ w, path, onChange, onTest }: { w: WebhookEndpoint; path: string; onChange: () => void; onTest: () => void }) {
  const { route } = useLocation();
  const [done, setDone] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [rotating, setRotating] = useState(false);
  const action = useAction();
  const run = (fn: () => Promise<string>) => void action.run(async () => setDone(await fn()));
  const test = () =>
    run(async () => {
      await api.post(`${path}/test`, {});
      onTest();
      return 'Test event queued: its delivery shows below.';
    });
  const setEnabled = (enabled: boolean) =>
    run(async () => {
      await api.patch(path, { enabled });
      onChange();
      return enabled ? 'Endpoint enabled.' : 'Endpoint disabled.';
    });
  const remove = () =>
    action.run(async () => {
      await api.del(path);
      route(href('/webhooks'));
    });
  const enabled = w.status === 'enabled';
  return (
    <section aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      {secret ? <SecretOnce label="New signing secret" value={secret} onDone={() => setSecret(null)} /> : null}
      <div class="buttons">
        <button type="button" onClick={test} disabled={action.busy || !enabled}>
          Send a test event
        </button>
        <button type="button" class="secondary" onClick={() => setEnabled(!enabled)} disabled={action.busy}>
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" onClick={() => setRotating(true)} disabled={action.busy || rotating}>
          Rotate the secret
        </button>
        <ConfirmButton label="Delete" confirmLabel="Delete this endpoint now" onConfirm={remove} />
      </div>
      {rotating ? (
        <RotateForm
          path={path}
          onCancel={() => setRotating(false)}
          onRotated={(s) => {
            setRotating(false);
            setSecret(s);
            onChange();
          }}
        />
      ) : null}
      <ErrorNote error={action.error} />
      {done ? <Notice>{done}</Notice> : null}
    </section>
  );
}

function RotateForm({ path, onRotated, onCancel }: { path: string; onRotated: (secret: string) => void; onCancel: () => void }) {
  return (
    <GraceHoursForm
      id="rotate"
      title="Rotate the signing secret"
      level={3}
      label="Keep signing with the current secret for (hours)"
      max={72}
      hint="0 to 72. Until then each delivery carries both signatures, so your receiver can switch without missing one."
      submitLabel="Rotate"
      submit={async (hours) => {
        const { data } = await api.post<{ data: { secret: string } }>(`${path}/rotate-secret`, { expire_current_in_hours: hours });
        onRotated(data.secret);
      }}
      onCancel={onCancel}
    />
  );
}
