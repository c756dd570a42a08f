import { z } from 'zod';

/**
 * A create body: a JSON:API document (contract/bodies/jsonapi.ts) whose attributes, optional in its schema, hold
 * the name a new resource needs. Without them it is refused as `data.attributes.name is required`; with them,
 * `toInput` turns attributes and relationships into the service's input.
 */
export function createBody<A, R, T>(
  document: z.ZodType<{ data: { attributes?: A; relationships?: R } }>,
  toInput: (attributes: A, relationships: R | undefined) => T,
) {
  return document.transform((b, ctx) => {
    const { attributes, relationships } = b.data;
    if (attributes === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'data.attributes.name is required',
        path: ['data', 'attributes', 'name'],
      });
      return z.NEVER;
    }
    return toInput(attributes, relationships);
  });
}
