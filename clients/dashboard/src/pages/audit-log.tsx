import type { AuditEntry } from '../api/types';
import { List, type Column } from '../components/list';
import { PageTitle } from '../components/ui';
import { formatDateTime } from '../format';

const COLUMNS: Column<AuditEntry>[] = [
  { label: 'When', value: (a) => a.created_at, render: (a) => formatDateTime(a.created_at) },
  { label: 'Who', value: (a) => a.actor.email },
  { label: 'Action', value: (a) => a.action, render: (a) => <code>{a.action}</code> },
  { label: 'Target', value: (a) => a.target, render: (a) => (a.target ? <code>{a.target}</code> : '—') },
  { label: 'Address', value: (a) => a.address, render: (a) => a.address ?? '—' },
];

/** Every sign-in, invitation, role change, key and webhook endpoint change, newest first (owners). */
export function AuditLogPage() {
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>Changes to members, keys, webhook endpoints and the lock date, and every sign-in, from the dashboard or the admin command line. Kept a year.</p>
      <List<AuditEntry> title="Audit log" path="/audit-log" columns={COLUMNS} createdFilter={false} empty="Nothing recorded yet." />
    </>
  );
}
