import { BadParameterError } from '../../lib/errors';

/** `include=a,b`: every name must be one the endpoint offers, else 400 naming the allowed ones. */
export function parseInclude<T extends string>(value: unknown, allowed: readonly T[]): Set<T> {
  const out = new Set<T>();
  if (value === undefined || value === '') return out;
  if (typeof value !== 'string') throw new BadParameterError('include must be given once.', { field: 'include' });
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (!(allowed as readonly string[]).includes(name)) {
      throw new BadParameterError(`include=${name} is not supported here; use one of: ${allowed.join(', ')}.`, {
        field: 'include',
      });
    }
    out.add(name as T);
  }
  return out;
}

export interface Sort<F extends string> {
  field: F;
  descending: boolean;
}

/** `sort=field` or `sort=-field` (one field), else 400 naming the allowed values. */
export function parseSort<F extends string>(value: unknown, fields: readonly F[]): Sort<F> | undefined {
  if (value === undefined || value === '') return undefined;
  const allowedText = fields.flatMap((f) => [f, `-${f}`]).join(', ');
  if (typeof value !== 'string')
    throw new BadParameterError(`sort must be given once: one of ${allowedText}.`, { field: 'sort' });
  const descending = value.startsWith('-');
  const field = descending ? value.slice(1) : value;
  if (!(fields as readonly string[]).includes(field)) {
    throw new BadParameterError(`sort=${value} is not supported; use one of: ${allowedText}.`, { field: 'sort' });
  }
  return { field: field as F, descending };
}
