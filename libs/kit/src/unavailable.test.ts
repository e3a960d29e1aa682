import { isBackendUnavailable } from './unavailable';

describe('isBackendUnavailable', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }],
    [{ sqlState: '3D000' }],
    [{ message: 'Connection terminated unexpectedly' }],
    [{ message: 'Knex: Timeout acquiring a connection. The pool is probably full.' }],
    [{ message: 'wrapped', cause: { code: '08006' } }],
  ])('%j is an outage', (e) => {
    expect(isBackendUnavailable(e)).toBe(true);
  });

  it.each([[{ code: '23505' }], [new Error('boom')], [undefined], [{ code: '42P01' }]])('%j is not', (e) => {
    expect(isBackendUnavailable(e)).toBe(false);
  });
});
