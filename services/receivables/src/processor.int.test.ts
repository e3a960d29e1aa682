import { randomBytes, randomUUID } from 'node:crypto';
import { type RpcReply, type TrustedContext, compileBody, schemas } from '@acct/contracts';
import { decryptSecret } from '@acct/kit';
import { type TestService, ctx, firstRow, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';

const validProcessor = compileBody(schemas.receivables.paymentProcessorResponse);

describe('receivables: payment-processor settings against real Postgres and NATS', () => {
  const key = randomBytes(32);
  let svc: TestService;

  const put = (c: TrustedContext, secret: string) => svc.call('payment_processor.put', c, { body: { provider: 'stripe', signing_secret: secret } });
  const ok = (r: RpcReply): any => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    expect(validProcessor(r.body)).toBe(true);
    return (r.body as { data: unknown }).data;
  };

  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: key } }));
  });

  afterAll(() => svc.stop());

  const stored = async (id: string) => firstRow(await svc.sql('SELECT secret_encrypted, status FROM payment_processors WHERE id = ?', [id]));

  it('keeps the signing secret only encrypted, bound to the source id, under PROCESSOR_SECRET_KEY', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const p = ok(await put(ctx(), secret));
    const row = await stored(p.source_id);
    expect(row.secret_encrypted).not.toContain(secret.slice(6));
    expect(decryptSecret(key, p.source_id, row.secret_encrypted)).toBe(secret);
    expect(() => decryptSecret(key, randomUUID(), row.secret_encrypted)).toThrow();
  });

  it('two first PUTs of one app at once leave one processor (the second updates the first)', async () => {
    const c = ctx();
    const [a, b] = await Promise.all([put(c, `whsec_${'a'.repeat(32)}`), put({ ...c, requestId: randomUUID() }, `whsec_${'b'.repeat(32)}`)]);
    expect(ok(a).source_id).toBe(ok(b).source_id);
    const count = await svc.sql('SELECT count(*) AS n FROM payment_processors WHERE organization_id = ?', [c.organizationId]);
    expect(Number(count[0]!.n)).toBe(1);
  });

  it('is per connected app: another app of the organization gets its own source id', async () => {
    const c = ctx();
    const first = ok(await put(c, `whsec_${'c'.repeat(32)}`));
    const second = ok(await put({ ...c, connectedAppId: randomUUID() }, `whsec_${'c'.repeat(32)}`));
    expect(second.source_id).not.toBe(first.source_id);
  });
});
