import { type CustomerDto, type InvoiceDto, type RpcOperation, type TrustedContext, single } from '@acct/contracts';
import type { RpcClient, RpcServer } from './rpc';

/**
 * Type-level checks of the RPC catalogue's typing: `tsc -p tsconfig.test.json` fails if a line
 * marked @ts-expect-error compiles. Never called at run time.
 */
export function typeChecks(server: RpcServer, client: RpcClient, ctx: TrustedContext, invoice: InvoiceDto, customer: CustomerDto): void {
  server.handle('invoices.create', async (req) => {
    const due: string = req.body.due_date;
    const quantities: number[] = req.body.line_items.map((item) => item.quantity);
    // @ts-expect-error not a field of the invoice create body
    void req.body.due;
    void [due, quantities];
    return { ok: true, status: 201, body: single('invoice', invoice) };
  });

  // @ts-expect-error a customer reply must be {data, customer}, not {data, invoice}
  server.handle('customers.get', async () => ({ ok: true, status: 200, body: single('invoice', invoice) }));

  server.handle('customers.get', async (req) => {
    const id: string = req.params.id;
    void id;
    // @ts-expect-error only id is a path parameter
    void req.params.customer_id;
    return { ok: true, status: 200, body: single('customer', customer) };
  });

  // @ts-expect-error the action of a post is {type: posted, status: completed}
  server.handle('invoices.post', async () => ({
    ok: true,
    status: 200,
    body: { ...single('invoice', invoice), action: { type: 'voided' as const, status: 'completed' as const } },
  }));

  server.handle('estimates.status', async (req) => {
    // @ts-expect-error converted is not a status the caller may ask for
    const s: 'converted' = req.body.status;
    void s;
    return { ok: true, status: 200, body: single('estimate', { id: req.params.id, status: req.body.status }) };
  });

  server.handle('invoices.list', async (req) => {
    // @ts-expect-error status is an enum, not any string
    const st: 'void' = req.query.status;
    void st;
    return { ok: true, status: 200, body: { data: [invoice], invoices: [invoice], pagination: { limit: 1, offset: 0, count: 1, has_more: false } } };
  });

  // An operation known only at run time stays untyped (the gateway's forwarding).
  server.handle<RpcOperation>('customers.get', async (req) => ({ ok: true, status: 200, body: { anything: req.body } }));

  void (async () => {
    // @ts-expect-error external_customer_id is required
    await client.call('customers.create', { ctx, params: {}, query: {}, body: { name: 'Ada' } });
    const r = await client.call('customers.get', { ctx, params: { id: 'x' }, query: {}, body: {} });
    if (r.ok) {
      const name: string = r.body.customer.name;
      const email: string | null = r.body.data.email;
      void [name, email];
      // @ts-expect-error a customer reply has no invoice member
      void r.body.invoice;
    }
  });
}

it('type checks compile (see tsc -p tsconfig.test.json)', () => {
  expect(typeof typeChecks).toBe('function');
});
