import { PageTitle } from '../components/ui';

export function WebhooksPage() {
  return <PageTitle>Webhooks</PageTitle>;
}
