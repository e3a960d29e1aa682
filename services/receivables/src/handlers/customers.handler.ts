import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, type CustomerCreateBody, list, page, single, type RpcRequest } from '@acct/contracts';
import type { Orm, RpcServer } from '@acct/kit';
import { type Customer, CustomerSchema, customerDto } from '../entities';
import { sameCustomerContent } from '../domain/customers';
import { pageQuery, scopeOf } from '../domain/scope';

export function registerCustomerHandlers(server: RpcServer, orm: Orm): void {
  server.handle('customers.create', async (req: RpcRequest<CustomerCreateBody>) => {
    const em = orm.em.fork();
    const scope = scopeOf(req.ctx);
    const body = req.body;
    const row: Customer = {
      id: randomUUID(),
      ...scope,
      externalCustomerId: body.external_customer_id,
      name: body.name,
      email: body.email ?? null,
      status: 'active',
      createdAt: new Date(),
    };
    try {
      await em.insert(CustomerSchema, row);
      return { ok: true, status: 201, body: single('customer', customerDto(row)) };
    } catch (e) {
      if (!(e instanceof UniqueConstraintViolationException)) throw e;
    }
    // external_customer_id already used in this organization and environment.
    const existing = await em.findOneOrFail(CustomerSchema, { ...scope, externalCustomerId: body.external_customer_id });
    if (!sameCustomerContent(existing, body)) {
      throw AppError.conflict('external_customer_id was already used for a customer with different content.', [
        { field: '/external_customer_id', issue: 'already_used', message: `Customer ${existing.id} has this external id.` },
      ]);
    }
    return { ok: true, status: 200, replayed: true, body: single('customer', customerDto(existing)) };
  });

  server.handle('customers.list', async (req) => {
    const { limit, offset } = pageQuery(req.query);
    const rows = await orm.em.fork().find(CustomerSchema, scopeOf(req.ctx), {
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      limit: limit + 1,
      offset,
    });
    const p = page(rows, limit, offset);
    return { ok: true, status: 200, body: list('customers', p.items.map(customerDto), p.pagination) };
  });

  server.handle('customers.get', async (req) => {
    const c = await orm.em.fork().findOne(CustomerSchema, { id: req.params.id, ...scopeOf(req.ctx) });
    if (!c) throw AppError.notFound('Customer', req.params.id);
    return { ok: true, status: 200, body: single('customer', customerDto(c)) };
  });
}
