import { Optional, type Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum, date, dateTime, listEnvelope, obj, paginationQuery, singleEnvelope, uuid } from './common';

/** Reporting: the ledger read model (chart of accounts, journal entries) and the reports of API-DECISIONS §8. */

const signedCents = Type.Integer();
const asOf = Optional(Type.String({ format: 'date', description: 'The report date (inclusive), YYYY-MM-DD; default today (UTC).' }));

export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;
export const account = obj({
  id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(ACCOUNT_TYPES),
  subtype: Nullable(Type.String()),
  normal_balance: StringEnum(['debit', 'credit'] as const),
  debit_total_cents: signedCents,
  credit_total_cents: signedCents,
  balance_cents: Type.Integer({ description: 'Debits − credits for debit-normal accounts, credits − debits otherwise.' }),
});
export type AccountDto = Static<typeof account>;
export const accountListQuery = obj({ ...paginationQuery });
export const accountResponse = singleEnvelope('account', account);
export const accountListResponse = listEnvelope('accounts', account);

export const journalLine = obj({
  account_id: uuid,
  account_code: Type.String(),
  side: StringEnum(['debit', 'credit'] as const),
  amount_cents: Type.Integer(),
  customer_id: Nullable(uuid),
  invoice_id: Nullable(uuid),
  vendor_id: Nullable(uuid),
  bill_id: Nullable(uuid),
});
export const journalEntry = obj({
  id: uuid,
  entry_date: date,
  source_type: Type.String(),
  source_id: uuid,
  memo: Nullable(Type.String()),
  reverses_entry_id: Nullable(uuid),
  posted_at: dateTime,
  lines: Type.Array(journalLine),
});
export const journalEntryListQuery = obj({
  ...paginationQuery,
  source_type: Optional(Type.String({ minLength: 1, maxLength: 64 })),
  source_id: Optional(uuid),
  from: Optional(Type.String({ format: 'date', description: 'Entries dated on or after this date.' })),
  to: Optional(Type.String({ format: 'date', description: 'Entries dated on or before this date.' })),
});
export const journalEntryListResponse = listEnvelope('journal_entries', journalEntry);

export const summaryQuery = obj({
  from: Type.String({ format: 'date', description: 'First entry date (inclusive).' }),
  to: Type.String({ format: 'date', description: 'Last entry date (inclusive); not before from.' }),
});
export const summary = obj({ from: date, to: date, revenue_cents: signedCents, accounts_receivable_cents: signedCents, accounts_payable_cents: signedCents });
export const summaryResponse = singleEnvelope('report_summary', summary);

export const agingBuckets = obj({ current: signedCents, days_1_30: signedCents, days_31_60: signedCents, days_61_90: signedCents, days_over_90: signedCents });
export type AgingBucketsDto = Static<typeof agingBuckets>;
export const agingQuery = obj({ as_of: asOf });
export const receivablesReport = obj({
  as_of: date,
  total_open_cents: signedCents,
  customer_count: Type.Integer(),
  aging: agingBuckets,
  customers: Type.Array(obj({ customer_id: uuid, display_name: Nullable(Type.String()), open_cents: signedCents, aging: agingBuckets })),
});
export const receivablesReportResponse = singleEnvelope('accounts_receivable', receivablesReport);
export const payablesReport = obj({
  as_of: date,
  total_open_cents: signedCents,
  vendor_count: Type.Integer(),
  aging: agingBuckets,
  vendors: Type.Array(obj({ vendor_id: uuid, display_name: Nullable(Type.String()), open_cents: signedCents, aging: agingBuckets })),
});
export const payablesReportResponse = singleEnvelope('accounts_payable', payablesReport);

export const form1099Query = obj({
  year: Type.String({ pattern: '^[0-9]{4}$', description: 'The reporting year, 4 digits.' }),
  include_ineligible: Optional(Type.Boolean({ default: false, description: 'Also list vendors that are not 1099-eligible (never counted in the totals).' })),
});
export const form1099Vendor = obj({
  vendor_id: uuid,
  display_name: Nullable(Type.String()),
  is_1099_eligible: Type.Boolean(),
  w9_on_file: Type.Boolean(),
  paid_cents: signedCents,
  reportable: Type.Boolean({ description: 'Eligible and paid at or over the threshold.' }),
});
export const form1099Report = obj({
  reporting_year: Type.Integer(),
  threshold_cents: Type.Integer(),
  total_reportable_paid_cents: signedCents,
  eligible_vendor_count: Type.Integer(),
  missing_w9_count: Type.Integer(),
  vendors: Type.Array(form1099Vendor),
});
export type Form1099ReportDto = Static<typeof form1099Report>;
export const form1099Response = singleEnvelope('tax_1099_summary', form1099Report);

export const trialBalanceQuery = obj({ as_of: asOf });
export const trialBalanceRow = obj({
  account_id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(ACCOUNT_TYPES),
  debit_cents: signedCents,
  credit_cents: signedCents,
});
export const trialBalance = obj({
  as_of: date,
  accounts: Type.Array(trialBalanceRow),
  total_debit_cents: signedCents,
  total_credit_cents: signedCents,
  balanced: Type.Boolean(),
});
export const trialBalanceResponse = singleEnvelope('trial_balance', trialBalance);

/** The admin rebuild (not a public route): drop the projection and replay the stream. */
export const rebuildReply = obj({ applied: Type.Integer(), last_seq: Type.Integer() });
