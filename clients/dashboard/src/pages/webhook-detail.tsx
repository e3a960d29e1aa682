import { PageTitle } from '../components/ui';

export function WebhookDetailPage() {
  return <PageTitle>Webhook endpoint</PageTitle>;
}
