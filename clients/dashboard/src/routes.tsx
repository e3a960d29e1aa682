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

export const PAGES: PageRoute[] = [
  { path: '/', component: page(() => import('./pages/overview').then((m) => m.OverviewPage)) },
  { path: '/customers', component: page(() => import('./pages/placeholder').then((m) => m.CustomersPage)) },
  { path: '/invoices', component: page(() => import('./pages/placeholder').then((m) => m.InvoicesPage)) },
  { path: '/estimates', component: page(() => import('./pages/placeholder').then((m) => m.EstimatesPage)) },
  { path: '/payments', component: page(() => import('./pages/placeholder').then((m) => m.PaymentsPage)) },
  { path: '/vendors', component: page(() => import('./pages/placeholder').then((m) => m.VendorsPage)) },
  { path: '/bills', component: page(() => import('./pages/placeholder').then((m) => m.BillsPage)) },
  { path: '/vendor-payments', component: page(() => import('./pages/placeholder').then((m) => m.VendorPaymentsPage)) },
  { path: '/reports', component: page(() => import('./pages/placeholder').then((m) => m.ReportsPage)) },
  { path: '/journal', component: page(() => import('./pages/placeholder').then((m) => m.JournalPage)) },
  { path: '/events', component: page(() => import('./pages/placeholder').then((m) => m.EventsPage)) },
  { path: '/webhooks', component: page(() => import('./pages/webhooks').then((m) => m.WebhooksPage)), needs: 'webhooks' },
  { path: '/webhooks/:id', component: page(() => import('./pages/webhook-detail').then((m) => m.WebhookDetailPage)), needs: 'webhooks' },
  { path: '/keys', component: page(() => import('./pages/keys').then((m) => m.KeysPage)), needs: 'keys' },
  { path: '/members', component: page(() => import('./pages/members').then((m) => m.MembersPage)), needs: 'members' },
  { path: '/audit-log', component: page(() => import('./pages/audit-log').then((m) => m.AuditLogPage)), needs: 'members' },
  { path: '/settings', component: page(() => import('./pages/settings').then((m) => m.SettingsPage)) },
  { path: '/account', component: page(() => import('./pages/account').then((m) => m.AccountPage)) },
];
