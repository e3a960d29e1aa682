/**
 * Who sees what (docs/dashboard.md "Roles"). The server checks every call; the pages only leave out
 * what a role cannot use, so a member is not offered a button that answers 403.
 */
export type Role = 'owner' | 'developer' | 'accountant' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'developer', 'accountant', 'viewer'];

export type Ability =
  | 'write' // every public operation (create, post, void...)
  | 'keys'
  | 'webhooks'
  | 'members' // members, invites, apps, audit log
  | 'books_lock';

const ABILITIES: Record<Role, readonly Ability[]> = {
  owner: ['write', 'keys', 'webhooks', 'members', 'books_lock'],
  developer: ['write', 'keys', 'webhooks', 'books_lock'],
  accountant: ['books_lock'],
  viewer: [],
};

export function can(role: Role | undefined, ability: Ability): boolean {
  return role !== undefined && ABILITIES[role].includes(ability);
}

export interface NavItem {
  label: string;
  /** The page's path under /dashboard. */
  path: string;
  /** Shown only to roles with this ability. */
  needs?: Ability;
}

export const NAV: readonly NavItem[] = [
  { label: 'Overview', path: '/' },
  { label: 'Customers', path: '/customers' },
  { label: 'Invoices', path: '/invoices' },
  { label: 'Estimates', path: '/estimates' },
  { label: 'Payments', path: '/payments' },
  { label: 'Processor payouts', path: '/processor-payouts' },
  { label: 'Vendors', path: '/vendors' },
  { label: 'Bills', path: '/bills' },
  { label: 'Vendor payments', path: '/vendor-payments' },
  { label: 'Reports', path: '/reports' },
  { label: 'Journal', path: '/journal' },
  { label: 'Webhooks', path: '/webhooks', needs: 'webhooks' },
  { label: 'Inbound events', path: '/events' },
  { label: 'Keys', path: '/keys', needs: 'keys' },
  { label: 'Members', path: '/members', needs: 'members' },
  { label: 'Audit log', path: '/audit-log', needs: 'members' },
  { label: 'Settings', path: '/settings' },
];

export function navFor(role: Role | undefined): NavItem[] {
  return NAV.filter((item) => !item.needs || can(role, item.needs));
}
