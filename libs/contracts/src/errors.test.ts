import { AppError, ERROR_CODES, HTTP_STATUS_BY_CODE, isAppError, type ErrorCode } from './errors';

/** API-DECISIONS §1, the table of error codes, by HTTP status (signature_invalid: issue #14, a Stripe-Signature that does not verify; period_locked: §12). */
const DECIDED_BY_STATUS: Record<number, ErrorCode[]> = {
  400: ['validation_failed', 'signature_invalid', 'trusted_scope_field_not_allowed'],
  401: ['unauthorized'],
  403: ['forbidden', 'module_disabled'],
  404: ['not_found'],
  409: ['conflict', 'period_locked'],
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['service_unavailable'],
};
const DECIDED = Object.fromEntries(Object.entries(DECIDED_BY_STATUS).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)]))) as Record<ErrorCode, number>;

describe('error codes', () => {
  it('has exactly the codes of API-DECISIONS §1 and §12 (and signature_invalid of issue #14), without duplicates', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(DECIDED).sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it.each(Object.entries(DECIDED))('maps %s to HTTP %i', (code, status) => {
    expect(HTTP_STATUS_BY_CODE[code as ErrorCode]).toBe(status);
  });

  it('maps every code, and nothing else, to a 4xx or 5xx status', () => {
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(HTTP_STATUS_BY_CODE[code]).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS_BY_CODE[code]).toBeLessThan(600);
    }
  });

  it('codes are stable snake_case words', () => {
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});

describe('AppError', () => {
  it('toBody returns exactly {code, message, details}', () => {
    const details = [{ field: '/name', issue: 'required', message: '/name is required.' }];
    const e = new AppError('validation_failed', 'The body is invalid.', details);
    expect(e.toBody()).toEqual({ code: 'validation_failed', message: 'The body is invalid.', details });
    expect(Object.keys(e.toBody()).sort()).toEqual(['code', 'details', 'message']);
  });

  it('defaults details to [] and leaves httpStatus unset', () => {
    const e = new AppError('forbidden', 'no');
    expect(e.toBody()).toEqual({ code: 'forbidden', message: 'no', details: [] });
    expect(e.httpStatus).toBeUndefined();
    expect(new AppError('validation_failed', 'too big', [], 413).httpStatus).toBe(413);
  });

  it('is an Error named AppError and recognised by isAppError', () => {
    const e = AppError.conflict('taken');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('AppError');
    expect(e.message).toBe('taken');
    expect(isAppError(e)).toBe(true);
    expect(isAppError(new Error('plain'))).toBe(false);
    expect(isAppError({ code: 'conflict', message: 'x', details: [] })).toBe(false);
    expect(isAppError(null)).toBe(false);
  });

  it('factories set their codes', () => {
    expect(AppError.notFound('Customer', 'abc').toBody()).toEqual({ code: 'not_found', message: 'Customer abc was not found.', details: [] });
    expect(AppError.notFound('Customer').message).toBe('Customer was not found.');
    const d = [{ field: 'limit', issue: 'out_of_range', message: 'limit must be <= 100.' }];
    expect(AppError.validation('bad', d).toBody()).toEqual({ code: 'validation_failed', message: 'bad', details: d });
    expect(AppError.conflict('c', d).code).toBe('conflict');
  });
});
