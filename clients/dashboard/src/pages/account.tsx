import { PageTitle } from '../components/ui';

export function AccountPage() {
  return <PageTitle>Account</PageTitle>;
}
