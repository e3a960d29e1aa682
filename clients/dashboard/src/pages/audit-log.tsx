import { PageTitle } from '../components/ui';

export function AuditLogPage() {
  return <PageTitle>Audit log</PageTitle>;
}
