import type { ComponentChildren } from 'preact';
import type { Query } from '../../api/client';
import type { Column } from '../../components/list';
import type { LineItem } from './types';

/** Another list shown on a record's page (a customer's invoices, an invoice's payments). */
export interface Related {
  title: string;
  kind: Kind<never>;
  query: Query;
}

/** One kind of record of the books: its list, its page, and what its page shows beside the facts. */
export interface Kind<T extends { id: string }> {
  /** The page path under /dashboard: `/invoices` (a record: `/invoices/<id>`). */
  route: string;
  /** The public API's list path under /dashboard/api: `/v1/invoices`. */
  path: string;
  title: string;
  one: string;
  /** The list's exact-match external id filter. */
  searchParam?: string;
  searchLabel?: string;
  /** The list's `status` filter values, when it has one. */
  statuses?: readonly string[];
  columns: Column<T>[];
  /** The record page's heading. */
  heading: (r: T) => string;
  facts: (r: T) => [string, ComponentChildren][];
  lines?: (r: T) => { items: LineItem[]; currency: string };
  /** More of the record as tables (a vendor payment's allocations). */
  extra?: (r: T) => ComponentChildren;
  /** Whether it posts to the ledger (its page lists its journal entries, by source_id). */
  journal: boolean;
  /** Why there are no journal entries, when it does not post. */
  noJournal?: string;
  /** Whether documents can be linked to it (document links: customer, invoice, estimate, vendor, bill). */
  documents: boolean;
  related?: (r: T) => Related[];
}

/** Erases a kind's record type, to put kinds of different records in one table. */
export const anyKind = <T extends { id: string }>(k: Kind<T>): Kind<never> => k;
