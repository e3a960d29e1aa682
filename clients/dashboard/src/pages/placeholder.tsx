import { PageTitle } from '../components/ui';

/**
 * The books pages (customers to inbound events) are built on the shell's List and ChartFigure
 * components; until each has its own module, its route shows this page.
 */
function Placeholder({ title }: { title: string }) {
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <p>This page is not built yet.</p>
    </>
  );
}

export const CustomersPage = () => <Placeholder title="Customers" />;
export const InvoicesPage = () => <Placeholder title="Invoices" />;
export const EstimatesPage = () => <Placeholder title="Estimates" />;
export const PaymentsPage = () => <Placeholder title="Payments" />;
export const VendorsPage = () => <Placeholder title="Vendors" />;
export const BillsPage = () => <Placeholder title="Bills" />;
export const VendorPaymentsPage = () => <Placeholder title="Vendor payments" />;
export const ReportsPage = () => <Placeholder title="Reports" />;
export const JournalPage = () => <Placeholder title="Journal" />;
export const EventsPage = () => <Placeholder title="Inbound events" />;
