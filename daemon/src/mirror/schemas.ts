import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { AccountName } from '../auth/names';
import { ARCHITECTURES, BoxName } from '../registry/schemas';
import { parseConstraint } from './version-filter';

/** An http(s) URL, an absolute folder path or a file: URL (an export folder or a catalog file). */
export const UpstreamUrl = z.string().min(1).max(2048).refine((u) => {
  if (isAbsolute(u)) return true;
  try {
    return /^(https?|file):$/.test(new URL(u).protocol);
  } catch {
    return false;
  }
}, 'url must be an http or https URL, a file: URL or an absolute folder path');

const Name = z.string().min(1).max(64).regex(/^[A-Za-z0-9][A-Za-z0-9 _.:-]*$/, 'name may contain letters, numbers, spaces, "-", "_", ".", ":"');
const Token = z.string().min(1).max(4096);

const upstreamFields = {
  kind: z.enum(['registry', 'catalog', 'folder']).optional(),
  timeout_seconds: z.number().int().min(1).max(3600).optional(),
  max_failures: z.number().int().min(1).max(1000).optional(),
  pause_minutes: z.number().int().min(0).max(10_080).optional(),
};
export const CreateUpstreamBody = z.object({
  upstream: z.object({ name: Name.optional(), url: UpstreamUrl, token: Token.nullish(), ...upstreamFields }),
});
export const UpdateUpstreamBody = z.object({
  upstream: z.object({ name: Name.optional(), url: UpstreamUrl.optional(), token: Token.nullable().optional(), ...upstreamFields }),
});

/** "ORG/BOX" or "ORG", each part a valid local name. */
const BoxOrOrg = z.string().max(200).refine((s) => {
  const [ns, box, ...rest] = s.split('/');
  return rest.length === 0 && AccountName.safeParse(ns).success && (box === undefined || BoxName.safeParse(box).success);
}, 'must be ORG/BOX or ORG, with names of letters, numbers, "-", "_" and "."');

const Constraint = z.string().min(1).max(256).refine((c) => {
  try {
    parseConstraint(c);
    return true;
  } catch {
    return false;
  }
}, 'versions must be a constraint such as ">= 1.0, < 2.0" or "~> 1.2"');

const filterFields = {
  versions: Constraint.nullable().optional(),
  latest: z.number().int().min(1).max(10_000).nullable().optional(),
  providers: z.array(BoxName).max(50).optional(),
  architectures: z.array(z.enum(ARCHITECTURES)).max(ARCHITECTURES.length).optional(),
  private: z.boolean().optional(),
  interval_minutes: z.number().int().min(1).max(525_600).nullable().optional(),
  retain: z.number().int().min(1).max(10_000).nullable().optional(),
};
const oneSelection = (m: { versions?: string | null; latest?: number | null }) => !(m.versions && m.latest);
const SELECTION = { message: 'give versions or latest, not both', path: ['latest'] };

export const CreateMirrorBody = z.object({
  mirror: z.object({
    upstream_id: z.string().min(1).max(64).optional(),
    upstream: z.object({ url: UpstreamUrl, token: Token.nullish() }).optional(),
    source: BoxOrOrg,
    target: BoxOrOrg.optional(),
    run: z.boolean().optional(),
    ...filterFields,
  }).refine(oneSelection, SELECTION)
    .refine((m) => Boolean(m.upstream_id) !== Boolean(m.upstream), { message: 'give upstream_id or upstream, one of them', path: ['upstream_id'] })
    .refine((m) => !m.target || m.target.includes('/') === m.source.includes('/'), { message: 'target must be ORG/BOX for a box and ORG for an organization', path: ['target'] }),
});
export const UpdateMirrorBody = z.object({
  mirror: z.object({ target: BoxOrOrg.optional(), ...filterFields }).refine(oneSelection, SELECTION),
});
export type CreateMirror = z.output<typeof CreateMirrorBody>['mirror'];
export type UpdateMirror = z.output<typeof UpdateMirrorBody>['mirror'];
export type CreateUpstream = z.output<typeof CreateUpstreamBody>['upstream'];
export type UpdateUpstream = z.output<typeof UpdateUpstreamBody>['upstream'];

export const IdParams = z.object({ id: z.string().min(1).max(64) });
export const JobsQuery = z.object({ mirror: z.string().min(1).max(64) });
