import { PageTitle } from '../components/ui';
import { href } from '../paths';
import { can } from '../roles';
import { useSignedIn } from '../session';
import { BooksOverview } from './books/overview';

/** The landing page: who is signed in, the books' charts (revenue by month, aging, cash, recent events), shortcuts. */
export function OverviewPage() {
  const { member, organization } = useSignedIn();
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <p>
        Signed in as {member.name || member.email} ({member.role}){organization ? ` in ${organization.name}` : ''}.
      </p>
      <BooksOverview />
      <h2>Shortcuts</h2>
      <ul class="links">
        {can(member.role, 'keys') ? (
          <li>
            <a href={href('/keys')}>Create or roll an API key</a>
          </li>
        ) : null}
        {can(member.role, 'webhooks') ? (
          <li>
            <a href={href('/webhooks')}>Add a webhook endpoint and send a test event</a>
          </li>
        ) : null}
        <li>
          <a href={href('/reports')}>Read the reports</a>
        </li>
      </ul>
    </>
  );
}
