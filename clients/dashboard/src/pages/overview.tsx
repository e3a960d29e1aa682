import { PageTitle } from '../components/ui';
import { href } from '../paths';
import { can } from '../roles';
import { useSignedIn } from '../session';

/** The landing page. The books' charts (revenue by month, aging, cash) come with the books pages. */
export function OverviewPage() {
  const { member, organization } = useSignedIn();
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <p>
        Signed in as {member.name || member.email} ({member.role}){organization ? ` in ${organization.name}` : ''}.
      </p>
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
