import { z } from 'zod';

/** Path parameters every API shares: ids and names, bounded before any lookup. */
export const IdParams = z.object({ id: z.string().min(1).max(256) });
export const NameParams = z.object({ name: z.string().min(1).max(256) });
export const OrgParams = z.object({ org: z.string().min(1).max(256) });
export const OrgNameParams = OrgParams.extend(NameParams.shape);

/** An optional query or body text of at most `max` characters. */
export const optionalText = (max: number) => z.string().max(max).optional();
