import { z, type ZodType } from 'zod';

/** `{type, id}` of a related resource of the given type. */
export const Identifier = (type: string) =>
  z.object({
    type: z.literal(type, { message: `type must be "${type}"` }),
    id: z.string().min(1, 'id must not be empty').max(256),
  });

/** A to-many relationship in a request: `{data: [{type, id}, …]}`; `[]` clears it. */
export const ToManyInput = (type: string) => z.object({ data: z.array(Identifier(type)).max(1000) });

/** A to-one relationship in a request: `{data: {type, id}}` or `{data: null}`. */
export const ToOneInput = (type: string) => z.object({ data: Identifier(type).nullable() });

/**
 * A JSON:API request document: `{data: {type, attributes, relationships}}`. Unknown attributes and
 * relationships are dropped (zod strips them), as HCP Terraform ignores them.
 */
export function ResourceInput<A extends ZodType, R extends ZodType>(types: readonly [string, ...string[]], attributes: A, relationships: R) {
  return z.object({
    data: z.object({
      type: z.enum(types, { message: `data.type must be ${types.map((t) => `"${t}"`).join(' or ')}` }),
      id: z.string().optional(),
      attributes: attributes.optional(),
      relationships: relationships.optional(),
    }, { message: 'expected a JSON:API document: {"data": {"type": …, "attributes": {…}}}' }),
  });
}
