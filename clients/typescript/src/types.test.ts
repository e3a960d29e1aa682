/**
 * The SDK's public types, checked by the compiler (`tsc -p tsconfig.test.json`, part of `npm test`):
 * each `@ts-expect-error` below fails the build when the line it marks stops being an error, so a
 * type that widens (`unknown`, `string` for a union) breaks this file. The runtime checks are jest's.
 */
import { ApiError, type ErrorDetail, type WebhookEvent, type WebhookEventType, type components, verify } from './index';

/** true only when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(ok: Equal<A, B>) => ok;

/** What a webhook handler does with each event: `data` narrows with `type`. */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'invoice.posted':
      return `invoice ${event.data.invoice_number} for ${event.data.total_cents}`;
    case 'payment.posted':
      // @ts-expect-error an invoice's number is not a field of payment.posted's data
      return event.data.invoice_number;
    case 'api_key.revoked':
      return `key ${event.data.api_key_id} of app ${event.data.connected_app_id} revoked at ${event.data.revoked_at}`;
    default:
      return event.type;
  }
}

describe('SDK types', () => {
  it('types ApiError.details as {field, issue, message}[]', () => {
    const e = ApiError.from(new Response(null, { status: 400 }), {
      error: { code: 'validation_failed', message: 'bad', details: [{ field: '/name', issue: 'required', message: 'name is required' }] },
    });
    const first: ErrorDetail | undefined = e.details[0];
    const field: string | undefined = first?.field;
    // @ts-expect-error an issue is a string, not a number
    const issue: number | undefined = first?.issue;
    expect([field, issue]).toEqual(['/name', 'required']);
    expect(same<ApiError['details'], { field: string; issue: string; message: string }[]>(true)).toBe(true);
  });

  it('keeps only well-formed details, so `field` and `issue` are strings at run time as typed', () => {
    const e = ApiError.from(new Response(null, { status: 400 }), { error: { code: 'x', message: 'm', details: ['oops', { field: 1 }, { field: '/a', issue: 'required' }] } });
    expect(e.details).toEqual([{ field: '/a', issue: 'required', message: '/a: required' }]);
    expect(ApiError.from(new Response(null, { status: 500 }), undefined).details).toEqual([]);
  });

  it('makes webhook events a union discriminated by type', () => {
    const posted: WebhookEvent<'invoice.posted'> = {
      id: '37386ae0-4b6e-4c1a-9f3d-37386ae03738',
      type: 'invoice.posted',
      created_at: '2026-03-01T12:00:00Z',
      environment: 'test',
      organization_id: '141c8722-4b6e-4c1a-9f3d-141c8722141c',
      connected_app_id: '141c8722-4b6e-4c1a-9f3d-141c8722141d',
      data: { invoice_id: 'i', invoice_number: 'INV-1', customer_id: 'c', total_cents: 100, currency: 'USD', issue_date: '2026-03-01', due_date: '2026-03-31' },
    };
    expect(describeEvent(posted)).toBe('invoice INV-1 for 100');
    // @ts-expect-error an event's type is one the API delivers
    const unknownType: WebhookEventType = 'invoice.exploded';
    expect(unknownType).toBe('invoice.exploded');
    expect(same<ReturnType<typeof verify>, WebhookEvent>(true)).toBe(true);
    expect(same<WebhookEvent['type'], WebhookEventType>(true)).toBe(true);
  });

  it('types received_at as a string (a date or a date-time), not string | unknown', () => {
    expect(same<components['schemas']['CreatePaymentRequest']['received_at'], string>(true)).toBe(true);
    // @ts-expect-error a number is not a date
    const receivedAt: components['schemas']['CreatePaymentRequest']['received_at'] = 20260301;
    expect(receivedAt).toBe(20260301);
  });
});
