/** The public API's records as the books pages read them (libs/contracts/src/api; money in integer cents). */
export type Metadata = Record<string, string>;

export interface LineItem {
  description: string;
  quantity: number;
  unit_amount_cents: number;
  amount_cents: number;
}

export interface Customer {
  id: string;
  external_customer_id: string;
  name: string;
  email: string | null;
  status: string;
  metadata: Metadata;
  created_at: string;
}

export interface Invoice {
  id: string;
  external_invoice_id: string;
  customer_id: string;
  invoice_number: string;
  issue_date: string;
  due_date: string;
  line_items: LineItem[];
  status: string;
  total_cents: number;
  amount_paid_cents: number;
  balance_due_cents: number;
  currency: string;
  memo?: string | null;
  estimate_id?: string | null;
  metadata: Metadata;
  created_at: string;
}

export interface Estimate {
  id: string;
  external_estimate_id: string;
  customer_id: string;
  issue_date: string;
  expiry_date?: string | null;
  line_items: LineItem[];
  status: string;
  total_cents: number;
  currency: string;
  memo?: string | null;
  invoice_id?: string | null;
  metadata: Metadata;
  created_at: string;
}

export interface Payment {
  id: string;
  external_payment_id: string;
  invoice_id: string;
  amount_cents: number;
  received_date: string;
  source: string;
  processor?: string | null;
  currency: string;
  status: string;
  event_id?: string | null;
  metadata: Metadata;
  created_at: string;
}

export interface ProcessorPayout {
  id: string;
  external_payout_id: string;
  processor: string;
  payout_date: string;
  gross_cents: number;
  fee_cents: number;
  net_cents: number;
  currency: string;
  status: string;
  metadata: Metadata;
  created_at: string;
}

export interface Vendor {
  id: string;
  external_vendor_id: string;
  display_name: string;
  vendor_type: string;
  email: string | null;
  is_1099_eligible: boolean;
  w9_on_file: boolean;
  metadata: Metadata;
  created_at: string;
}

export interface Bill {
  id: string;
  external_bill_id: string;
  vendor_id: string;
  bill_number: string;
  issue_date: string;
  due_date: string;
  line_items: LineItem[];
  status: string;
  total_cents: number;
  amount_paid_cents: number;
  open_balance_cents: number;
  expense_account_id: string;
  currency: string;
  memo: string | null;
  reversal_reason: string | null;
  metadata: Metadata;
  created_at: string;
}

export interface VendorPayment {
  id: string;
  external_vendor_payment_id: string;
  vendor_id: string;
  amount_cents: number;
  payment_date: string;
  cash_account_id: string;
  allocations: { bill_id: string; amount_cents: number }[];
  status: string;
  currency: string;
  memo: string | null;
  reversal_reason: string | null;
  metadata: Metadata;
  created_at: string;
}

export interface JournalLine {
  account_id: string;
  account_code: string;
  side: 'debit' | 'credit';
  amount_cents: number;
}

export interface JournalEntry {
  id: string;
  entry_date: string;
  source_type: string;
  source_id: string;
  memo: string | null;
  reverses_entry_id: string | null;
  posted_at: string;
  lines: JournalLine[];
}

export interface ErrorDetail {
  field?: string;
  issue?: string;
  message?: string;
}

export interface InboundEvent {
  id: string;
  event_id: string;
  event_type: string;
  external_event_id?: string;
  source?: string;
  status: 'processed' | 'stored' | 'failed';
  payment_id?: string | null;
  details?: ErrorDetail[];
  created_at?: string;
}

export interface DocumentRecord {
  id: string;
  file_name: string;
  document_type: string;
  status: string;
  content_type: string;
  size_bytes: number;
  created_at: string;
}

export interface Account {
  id: string;
  code: string;
  name: string;
  type: string;
  subtype: string | null;
  normal_balance: 'debit' | 'credit';
  balance_cents: number;
}

export interface Aging {
  current: number;
  days_1_30: number;
  days_31_60: number;
  days_61_90: number;
  days_over_90: number;
}

export interface SummaryReport {
  from: string;
  to: string;
  revenue_cents: number;
  accounts_receivable_cents: number;
  accounts_payable_cents: number;
}

export interface PartyAging {
  id: string;
  display_name: string | null;
  open_cents: number;
  aging: Aging;
}

export interface ReceivableReport {
  as_of: string;
  total_open_cents: number;
  customer_count: number;
  aging: Aging;
  customers: (Omit<PartyAging, 'id'> & { customer_id: string })[];
}

export interface PayableReport {
  as_of: string;
  total_open_cents: number;
  vendor_count: number;
  aging: Aging;
  vendors: (Omit<PartyAging, 'id'> & { vendor_id: string })[];
}

export interface Tax1099Report {
  reporting_year: number;
  threshold_cents: number;
  total_reportable_paid_cents: number;
  eligible_vendor_count: number;
  missing_w9_count: number;
  vendors: { vendor_id: string; display_name: string | null; is_1099_eligible: boolean; w9_on_file: boolean; paid_cents: number; reportable: boolean }[];
}

export interface TrialBalance {
  as_of: string;
  accounts: { account_id: string; code: string; name: string; type: string; debit_cents: number; credit_cents: number }[];
  total_debit_cents: number;
  total_credit_cents: number;
  balanced: boolean;
}

export interface LedgerVerification {
  status: 'intact' | 'broken';
  entries_checked: number;
  chains: { service: string; entries: number; head_hash: string; first_broken_entry_id: string | null; reason?: string | null }[];
}
