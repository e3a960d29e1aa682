import { PageTitle } from '../components/ui';

export function MembersPage() {
  return <PageTitle>Members</PageTitle>;
}
