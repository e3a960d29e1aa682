import { PageTitle } from '../components/ui';

export function SettingsPage() {
  return <PageTitle>Settings</PageTitle>;
}
