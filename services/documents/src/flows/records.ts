import { AppError, type LinkRecordType, type RpcOperation, type TrustedContext } from '@acct/contracts';
import type { RpcClient } from '@acct/kit';

/** The operation that reads a record of each linkable type (its owning service answers 404 outside the scope). */
const RECORD_GET: Record<LinkRecordType, RpcOperation & `${string}.get`> = {
  customer: 'customers.get',
  invoice: 'invoices.get',
  estimate: 'estimates.get',
  vendor: 'vendors.get',
  bill: 'bills.get',
};

/** A record as its owning service answers it over NATS (404 unless it exists in the caller's organization and environment). */
export async function fetchRecord<T>(rpc: Pick<RpcClient, 'call'>, ctx: TrustedContext, type: LinkRecordType, id: string): Promise<T> {
  const reply = await rpc.call(RECORD_GET[type], { ctx, params: { id }, query: {}, body: {} });
  if (reply.ok) return (reply.body as { data: T }).data;
  if (reply.error.code === 'not_found') throw AppError.notFound(type[0]!.toUpperCase() + type.slice(1), id);
  throw new AppError(reply.error.code, reply.error.message, reply.error.details);
}

/** 404 unless the record exists in the caller's organization and environment. */
export async function requireRecord(rpc: Pick<RpcClient, 'call'>, ctx: TrustedContext, type: LinkRecordType, id: string): Promise<void> {
  await fetchRecord(rpc, ctx, type, id);
}
