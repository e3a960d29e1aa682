import { Optional, type Static, Type } from '@sinclair/typebox';
import { draftUpdateText } from '../openapi-texts';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, obj, optionalAll, recordListQuery, reversibleState, uuid } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';
import { currency, dueDocument, dueDocumentInput, memo } from '../schemas/line-items';

const BILL_STATUSES = ['draft', 'posted', 'reversed'] as const;
export type BillStatus = (typeof BILL_STATUSES)[number];
export const billCreateBody = obj({
  ...dueDocumentInput('bill', 'vendor'),
  expense_account_id: Optional(uuid),
  currency: Optional(currency),
  memo: Optional(memo),
  status: Optional(StringEnum(['draft', 'posted'] as const, { description: 'posted (default) books the bill now; draft defers it to POST /bills/{id}/post.' })),
  metadata: Optional(metadataInput),
});
/**
 * PATCH /bills/{id} (API-DECISIONS §11): any create field but status while draft (memo null clears it; POST /post
 * posts), only metadata once posted or reversed.
 */
const { status: _status, ...billFields } = billCreateBody.properties;
export type BillCreateBody = Static<typeof billCreateBody>;
export const billUpdateBody = obj({ ...optionalAll(billFields), memo: Optional(Nullable(memo)) });
export type BillUpdateBody = Static<typeof billUpdateBody>;
export const bill = obj({
  ...dueDocument('bill', 'vendor'),
  status: StringEnum(BILL_STATUSES),
  total_cents: Type.Integer(),
  amount_paid_cents: Type.Integer({ description: 'Allocated by posted, unreversed vendor payments.' }),
  open_balance_cents: Type.Integer({ description: 'total less payments while posted; 0 while draft or once reversed.' }),
  expense_account_id: uuid,
  currency: Type.String(),
  metadata: metadataRecord,
  ...reversibleState,
});
export type BillDto = Static<typeof bill>;
export const billListQuery = recordListQuery('external_bill_id', {
  status: Optional(StringEnum(BILL_STATUSES)),
  vendor_id: Optional(uuid),
  issue_date_from: Optional(Type.String({ format: 'date', description: 'Bills issued on or after this date.' })),
  issue_date_to: Optional(Type.String({ format: 'date', description: 'Bills issued on or before this date.' })),
});

export const {
  response: billResponse,
  listResponse: billListResponse,
  postResponse: billPostResponse,
  reverseResponse: billReverseResponse,
  operations: billOperations,
  routes: billRoutes,
} = recordResource({
  service: 'payables',
  resource: 'bills',
  one: 'bill',
  record: bill,
  create: billCreateBody,
  query: billListQuery,
  http: { name: 'Bill', path: '/api/v1/bills', tag: 'Bills', module: 'bills_ap' },
  actions: ['post', 'reverse'],
  update: billUpdateBody,
  routes: (bills) => [
    bills.list('List bills, newest first; filter by status, vendor_id and issue date range.'),
    bills.create({
      summary: 'Create a bill, posted by default (Dr expense account / Cr Accounts Payable, dated issue_date); retry-safe on external_bill_id.',
      description:
        "status draft defers the posting to POST /bills/{id}/post. The vendor must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date; currency USD only. " +
        'expense_account_id (default: account 5000 Expenses) must be an expense account of the organization and environment (404 if unknown, 400 if not an expense account). ' +
        'A zero-total bill posts with no journal entry. A repeat with the same external_bill_id and the same content (the requested status aside) returns the existing bill.',
    }),
    bills.get('Get one bill, with its open balance.'),
    bills.update({
      summary: 'Update a bill: any create field (but status) while draft, only metadata once posted.',
      description: draftUpdateText({
        kind: 'bill',
        party: 'vendor',
        checks: 'expense_account_id is checked as on create',
        clears: 'memo null clears it',
        note: 'status is not a field here: POST /bills/{id}/post posts.',
        after: 'posted or reversed',
      }),
    }),
    bills.action('post', {
      summary: 'Post a draft bill: Dr expense account / Cr Accounts Payable, dated issue_date.',
      description: 'Posting a posted bill returns it unchanged (200, Idempotent-Replayed: true); a reversed bill cannot be posted (409).',
    }),
    bills.action('reverse', {
      summary: 'Reverse a posted bill: the mirror journal entry, dated the day of reversal; the original entry is kept.',
      description:
        'Needs a posted bill with no allocation of a posted (unreversed) vendor payment on it: 409 conflict with issue bill_has_payments otherwise (reverse the payments first); ' +
        'a draft bill is 409. Reversing a reversed bill returns it unchanged (200, Idempotent-Replayed: true).',
    }),
  ],
});
