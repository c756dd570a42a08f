import { z } from 'zod';

/** One path segment (a name or a version), bounded before it is checked for what it names. */
export const Segment = z.string().max(256);

/** Path parameters every API shares: ids and names, bounded before any lookup. */
export const IdParams = z.object({ id: z.string().min(1).max(256) });
export const NameParams = z.object({ name: z.string().min(1).max(256) });
export const OrgParams = z.object({ org: z.string().min(1).max(256) });
export const OrgNameParams = OrgParams.extend(NameParams.shape);

/** An optional query or body text of at most `max` characters. */
export const optionalText = (max: number) => z.string().max(max).optional();

/** A blank query value is no value: `?provider=&architecture=` as the docs write it. */
export const blankIsAbsent = (v: unknown): unknown => (v === '' ? undefined : v);
/** A query value checked by `schema`, a blank one read as absent (so its default applies). */
export const queryValue = <T extends z.ZodType>(schema: T) => z.preprocess(blankIsAbsent, schema);
