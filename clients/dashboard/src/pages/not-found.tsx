import { PageTitle } from '../components/ui';
import { href } from '../paths';

export function NotFoundPage() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>This page does not exist, or your role does not include it.</p>
      <p>
        <a href={href('/')}>Go to the overview</a>
      </p>
    </>
  );
}
