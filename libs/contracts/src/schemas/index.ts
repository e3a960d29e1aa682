/**
 * The schemas of each service's resources, by service (`schemas.receivables.invoiceResponse`), for
 * code that checks a reply against its contract. Each schema's one home is its api/<resource>.ts.
 */
import * as bills from '../api/bills';
import * as booksLock from '../api/books-lock';
import * as customers from '../api/customers';
import * as documentRenders from '../api/document-renders';
import * as documentShares from '../api/document-shares';
import * as documentFiles from '../api/documents';
import * as estimates from '../api/estimates';
import * as events from '../api/events';
import * as invoices from '../api/invoices';
import * as ledger from '../api/ledger';
import * as paymentProcessor from '../api/payment-processor';
import * as payments from '../api/payments';
import * as payouts from '../api/payouts';
import * as portal from '../api/portal';
import * as settings from '../api/settings';
import * as statements from '../api/statements';
import * as vendorPayments from '../api/vendor-payments';
import * as vendors from '../api/vendors';

export { customers };
export const receivables = { ...invoices, ...payments, ...estimates, ...payouts, ...events, ...paymentProcessor, ...booksLock };
export const payables = { ...vendors, ...bills, ...vendorPayments };
export const reporting = { ...ledger, ...statements };
export const documents = { ...documentFiles, ...documentShares, ...documentRenders, ...portal, ...settings };
