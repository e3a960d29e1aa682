import type { AnyComponent } from 'preact';
import { lazy } from 'preact-iso';
import type { Ability } from './roles';

/**
 * The signed-in pages, each loaded when first visited (its own script chunk), so the first page
 * carries only the shell and itself. Paths are under /dashboard (paths.ts); a page the member's
 * role cannot use is not routed (the not-found page answers) and is not in the navigation.
 */
export interface PageRoute {
  path: string;
  component: AnyComponent<Record<string, unknown>>;
  needs?: Ability;
}

const page = <T,>(load: () => Promise<T>) => lazy(load) as unknown as AnyComponent<Record<string, unknown>>;

const books = () => import('./pages/books/records');
/** The books: each kind's list and record page (one chunk), the journal, reports and inbound events. */
const bookRoutes = (): PageRoute[] => [
  ...(
    [
      ['/customers', 'CustomersPage', 'CustomerPage'],
      ['/invoices', 'InvoicesPage', 'InvoicePage'],
      ['/estimates', 'EstimatesPage', 'EstimatePage'],
      ['/payments', 'PaymentsPage', 'PaymentPage'],
      ['/processor-payouts', 'PayoutsPage', 'PayoutPage'],
      ['/vendors', 'VendorsPage', 'VendorPage'],
      ['/bills', 'BillsPage', 'BillPage'],
      ['/vendor-payments', 'VendorPaymentsPage', 'VendorPaymentPage'],
    ] as const
  ).flatMap(([path, list, one]) => [
    { path, component: page(() => books().then((m) => m[list])) },
    { path: `${path}/:id`, component: page(() => books().then((m) => m[one])) },
  ]),
  { path: '/reports', component: page(() => import('./pages/books/reports').then((m) => m.ReportsPage)) },
  { path: '/reports/profit-and-loss', component: page(() => import('./pages/books/reports-pl').then((m) => m.ProfitAndLossPage)) },
  { path: '/reports/balance-sheet', component: page(() => import('./pages/books/reports-bs').then((m) => m.BalanceSheetPage)) },
  { path: '/reports/general-ledger', component: page(() => import('./pages/books/reports-gl').then((m) => m.GeneralLedgerPage)) },
  { path: '/reports/:report', component: page(() => import('./pages/books/reports').then((m) => m.ReportsPage)) },
  { path: '/journal', component: page(() => import('./pages/books/journal').then((m) => m.JournalPage)) },
  { path: '/events', component: page(() => import('./pages/books/events').then((m) => m.EventsPage)) },
];

export const PAGES: PageRoute[] = [
  { path: '/', component: page(() => import('./pages/overview').then((m) => m.OverviewPage)) },
  ...bookRoutes(),
  { path: '/webhooks', component: page(() => import('./pages/webhooks').then((m) => m.WebhooksPage)), needs: 'webhooks' },
  { path: '/webhooks/:id', component: page(() => import('./pages/webhook-detail').then((m) => m.WebhookDetailPage)), needs: 'webhooks' },
  { path: '/keys', component: page(() => import('./pages/keys').then((m) => m.KeysPage)), needs: 'keys' },
  { path: '/members', component: page(() => import('./pages/members').then((m) => m.MembersPage)), needs: 'members' },
  { path: '/audit-log', component: page(() => import('./pages/audit-log').then((m) => m.AuditLogPage)), needs: 'members' },
  { path: '/settings', component: page(() => import('./pages/settings').then((m) => m.SettingsPage)) },
  { path: '/account', component: page(() => import('./pages/account').then((m) => m.AccountPage)) },
];
