import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contract/error-codes';
import * as errors from './errors';

describe('AppError', () => {
  it('has one class per code, named by it at throw sites', () => {
    const classes = Object.values(errors).filter((v) => typeof v === 'function' && v !== errors.AppError) as Array<
      new (
        m: string,
      ) => errors.AppError
    >;
    const codes = classes.map((C) => new C('x').code).sort();
    expect(codes).toEqual([...ERROR_CODES].sort());
  });

  it('carries its details and nothing of HTTP', () => {
    const e = new errors.TwoFactorRequiredError('send a code', { deliveryMethods: ['app'] });
    expect(e).toBeInstanceOf(errors.AppError);
    expect(e).toMatchObject({
      code: 'two_factor_required',
      message: 'send a code',
      deliveryMethods: ['app'],
      name: 'TwoFactorRequiredError',
    });
    expect(Object.keys(new errors.NotFoundError('gone'))).toEqual(['code', 'name']);
  });
});
