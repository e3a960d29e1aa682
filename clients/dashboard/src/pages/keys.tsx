import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ApiKey, ConnectedApp } from '../api/types';
import { scopedApp } from '../components/apps';
import { GraceHoursForm } from '../components/grace-form';
import { List, type Column } from '../components/list';
import { useScope } from '../components/scope-switcher';
import { ConfirmButton, ErrorNote, Loading, Notice, PageTitle, SecretOnce } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useLoad } from '../hooks';

type NewKey = ApiKey & { key: string };

const COLUMNS: Column<ApiKey>[] = [
  { label: 'Key', value: (k) => k.prefix, render: (k) => <code>{k.prefix}</code> },
  { label: 'Status', value: (k) => k.status, render: (k) => <span class={`badge badge-${k.status}`}>{k.status}</span> },
  { label: 'Created', value: (k) => k.created_at, render: (k) => formatDateTime(k.created_at) },
  { label: 'Last used', value: (k) => k.last_used_at, render: (k) => formatDateTime(k.last_used_at) },
  { label: 'Expires', value: (k) => k.expires_at, render: (k) => (k.expires_at ? formatDateTime(k.expires_at) : 'Never') },
];

/** API keys of the scope's app and environment: create (shown once), roll, revoke. */
export function KeysPage() {
  const scope = useScope();
  const app = useLoad(() => scopedApp(scope), [scope.app]);
  return (
    <>
      <PageTitle>API keys</PageTitle>
      {app.loading ? <Loading what="the app" /> : null}
      <ErrorNote error={app.error} />
      {app.data === null ? <p>This organization has no connected app yet.</p> : null}
      {app.data ? <AppKeys app={app.data} environment={scope.environment} /> : null}
    </>
  );
}

function AppKeys({ app, environment }: { app: ConnectedApp; environment: string }) {
  const [shown, setShown] = useState<{ title: string; key: string } | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const [version, setVersion] = useState(0);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const base = `/apps/${encodeURIComponent(app.id)}/keys`;
  const create = () =>
    void action.run(async () => {
      const { data } = await api.post<{ data: NewKey }>(base, {});
      setShown({ title: `New ${environment} key`, key: data.key });
      setVersion((v) => v + 1);
    });
  const revoke = (k: ApiKey, reload: () => void) =>
    action.run(async () => {
      await api.del(`${base}/${encodeURIComponent(k.id)}`);
      setDone(`Key ${k.prefix} revoked.`);
      reload();
    });
  return (
    <>
      <p>
        Keys of <strong>{app.name}</strong> in the <strong>{environment}</strong> environment. A key is shown in full only once, when it is made.
      </p>
      {shown ? <SecretOnce label={shown.title} value={shown.key} onDone={() => setShown(null)} /> : null}
      {rolling ? (
        <RollForm
          base={base}
          apiKey={rolling}
          onRolled={(k) => {
            setRolling(null);
            setShown({ title: 'Rolled key: the new key', key: k.key });
            setVersion((v) => v + 1);
          }}
          onCancel={() => setRolling(null)}
        />
      ) : null}
      <p>
        <button type="button" onClick={create} disabled={action.busy}>
          Create a {environment} key
        </button>
      </p>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorNote error={action.error} />
      <List<ApiKey>
        title="API keys"
        path={base}
        columns={COLUMNS}
        createdFilter={false}
        reloadKey={version}
        actions={(k, reload) =>
          k.status === 'revoked' ? null : (
            <>
              <button type="button" class="secondary" onClick={() => setRolling(k)}>
                Roll
              </button>
              <ConfirmButton label="Revoke" confirmLabel={`Revoke ${k.prefix} now`} onConfirm={() => revoke(k, reload)} />
            </>
          )
        }
      />
    </>
  );
}

function RollForm({ base, apiKey, onRolled, onCancel }: { base: string; apiKey: ApiKey; onRolled: (k: NewKey) => void; onCancel: () => void }) {
  return (
    <GraceHoursForm
      id="roll"
      title={`Roll key ${apiKey.prefix}`}
      level={2}
      intro={<p>A new key is made now. The current one keeps working for the hours you choose (0: it stops at once), so your app can switch without downtime.</p>}
      label="Keep the current key for (hours)"
      max={168}
      hint="0 to 168 hours (a week)."
      submitLabel="Roll the key"
      submit={async (hours) => {
        const { data } = await api.post<{ data: NewKey }>(`${base}/${encodeURIComponent(apiKey.id)}/roll`, { expire_current_in_hours: hours });
        onRolled(data);
      }}
      onCancel={onCancel}
    />
  );
}
