import { v5, validate } from 'uuid';

export type AccountType = 'asset' | 'liability' | 'equity' | 'revenue' | 'expense';
export type AccountSubtype = 'cash' | 'bank' | 'receivable' | 'clearing' | 'payable' | null;
export type LedgerEnvironment = 'test' | 'live';
export type Side = 'debit' | 'credit';

export interface AccountDef {
  code: string;
  name: string;
  type: AccountType;
  subtype: AccountSubtype;
}

/** Codes of the default chart, so posting rules never spell an account number. */
export const ACCOUNT = {
  cash: '1000',
  bank: '1010',
  receivable: '1100',
  processorClearing: '1200',
  payable: '2000',
  revenue: '4000',
  expenses: '5000',
  processorFees: '5200',
} as const;

/** The chart every organization and environment starts with (API-DECISIONS §7). */
export const DEFAULT_CHART: readonly AccountDef[] = Object.freeze(
  [
    { code: ACCOUNT.cash, name: 'Cash', type: 'asset', subtype: 'cash' },
    { code: ACCOUNT.bank, name: 'Operating bank', type: 'asset', subtype: 'bank' },
    { code: ACCOUNT.receivable, name: 'Accounts Receivable', type: 'asset', subtype: 'receivable' },
    { code: ACCOUNT.processorClearing, name: 'Processor clearing', type: 'asset', subtype: 'clearing' },
    { code: ACCOUNT.payable, name: 'Accounts Payable', type: 'liability', subtype: 'payable' },
    { code: ACCOUNT.revenue, name: 'Revenue', type: 'revenue', subtype: null },
    { code: ACCOUNT.expenses, name: 'Expenses', type: 'expense', subtype: null },
    { code: ACCOUNT.processorFees, name: 'Processor fees', type: 'expense', subtype: null },
  ].map((a) => Object.freeze(a as AccountDef)),
);

export function findAccount(code: string, chart: readonly AccountDef[] = DEFAULT_CHART): AccountDef | undefined {
  return chart.find((a) => a.code === code);
}

/** Assets and expenses grow on the debit side; liabilities, equity and revenue on the credit side. */
export function normalBalance(type: AccountType): Side {
  return type === 'asset' || type === 'expense' ? 'debit' : 'credit';
}

/**
 * Namespace of ledger account ids. Never change it: every service and the reporting projection derive
 * the same account id from it without asking each other.
 */
export const LEDGER_ACCOUNT_NAMESPACE = 'c1700e95-454c-4a69-b1f7-f22029dab3cc';

/** An RFC 9562 uuid (the `uuid` package's check: version and variant bits included). */
export function isUuid(v: unknown): boolean {
  return typeof v === 'string' && validate(v);
}

/** RFC 4122 name-based UUID, version 5 (the `uuid` package's). */
export function uuidV5(name: string, namespace: string): string {
  if (!isUuid(namespace)) throw new Error(`bad namespace uuid ${namespace}`);
  return v5(name, namespace);
}

/** Account ids already derived, by their arguments: a posting derives the same few again and again. */
const derived = new Map<string, string>();
const DERIVED_MAX = 10_000;

/** The stable id of an organization's account in one environment. */
export function accountId(organizationId: string, environment: LedgerEnvironment, code: string): string {
  // A SHA-1 per call (5% of payables' CPU per bill created): the arguments seen before answer from memory.
  if (environment !== 'test' && environment !== 'live') throw new Error(`bad environment ${String(environment)}`);
  // Unambiguous: the length fixes where the organization ends, and an environment has no slash.
  const key = `${organizationId.length}:${organizationId}/${environment}/${code}`;
  const known = derived.get(key);
  if (known !== undefined) return known;
  if (!isUuid(organizationId)) throw new Error(`bad organization id ${organizationId}`);
  // Lower-cased: Postgres prints uuids in lower case, and the same organization must give the same id.
  const id = uuidV5(`${organizationId.toLowerCase()}/${environment}/${code}`, LEDGER_ACCOUNT_NAMESPACE);
  if (derived.size >= DERIVED_MAX) derived.delete(derived.keys().next().value!);
  derived.set(key, id);
  return id;
}

/** The account of the chart whose stable id (accountId) is `id` in this organization and environment. */
export function findAccountById(organizationId: string, environment: LedgerEnvironment, id: string, chart: readonly AccountDef[] = DEFAULT_CHART): AccountDef | undefined {
  const wanted = id.toLowerCase();
  return chart.find((a) => accountId(organizationId, environment, a.code) === wanted);
}
