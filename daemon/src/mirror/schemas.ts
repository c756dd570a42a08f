import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import * as Fields from '../contract/bodies/mirror';
import { ValidationError } from '../lib/errors';
import { parseConstraint } from './version-filter';
import { locationOf } from './upstreams/source';

/*
 * The fields of each change: contract/bodies/mirror.ts (the web UI sends them too), read here as
 * `Fields.*`. Here: what needs the daemon to check, and the rules between fields; the types below
 * are what a body is once checked.
 */

/**
 * An http(s) URL, an absolute folder path or a file: URL (an export folder or a catalog file),
 * told apart once parsed (upstreams/source.ts's locationOf), whatever the scheme's case.
 */
const Url = Fields.UpstreamUrl.refine((u) => locationOf(u) !== null, `url ${Fields.UPSTREAM_URL_RULE}`);

const Constraint = Fields.VersionConstraint.refine((c) => {
  try {
    parseConstraint(c);
    return true;
  } catch {
    return false;
  }
}, 'versions must be a constraint such as ">= 1.0, < 2.0" or "~> 1.2"');

/** A PEM certificate Node can read (the CA an upstream's certificate chains to). */
const CaPem = Fields.CreateUpstream.shape.ca
  .unwrap()
  .unwrap()
  .refine((pem) => {
    try {
      return new X509Certificate(pem).ca;
    } catch {
      return false;
    }
  }, 'ca must be a PEM CA certificate (-----BEGIN CERTIFICATE-----), such as the /ca.pem of a Boxyard on --tls auto')
  .nullable()
  .optional();

export const CreateUpstreamBody = z.object({ upstream: Fields.CreateUpstream.extend({ url: Url, ca: CaPem }) });
export const UpdateUpstreamBody = z.object({
  upstream: Fields.UpdateUpstream.extend({ url: Url.optional(), ca: CaPem }),
});

const ONE_UPSTREAM = 'give upstream_id or upstream, one of them';
const oneSelection = (m: { versions?: string | null; latest?: number | null }) => !(m.versions && m.latest);
const SELECTION = { message: 'give versions or latest, not both', path: ['latest'] };

export const CreateMirrorBody = z.object({
  mirror: Fields.CreateMirror.extend({
    upstream: Fields.CreateMirror.shape.upstream.unwrap().extend({ url: Url, ca: CaPem }).optional(),
    versions: Constraint.nullable().optional(),
  })
    .refine(oneSelection, SELECTION)
    .refine((m) => Boolean(m.upstream_id) !== Boolean(m.upstream), {
      message: ONE_UPSTREAM,
      path: ['upstream_id'],
    })
    .refine((m) => !m.target || m.target.includes('/') === m.source.includes('/'), {
      message: 'target must be ORG/BOX for a box and ORG for an organization',
      path: ['target'],
    }),
});
export const UpdateMirrorBody = z.object({
  mirror: Fields.UpdateMirror.extend({ versions: Constraint.nullable().optional() }).refine(oneSelection, SELECTION),
});
/** The upstream a resumed mirror reads through, when not its own: by id or inline, not both. */
export const ResumeMirrorBody = z.object({
  mirror: Fields.ResumeMirror.extend({
    upstream: Fields.CreateMirror.shape.upstream.unwrap().extend({ url: Url, ca: CaPem }).optional(),
  })
    .refine((m) => !(m.upstream_id && m.upstream), {
      message: 'give upstream_id or upstream, not both',
      path: ['upstream_id'],
    })
    .default({}),
});
export type CreateMirror = z.output<typeof CreateMirrorBody>['mirror'];
export type ResumeMirror = z.output<typeof ResumeMirrorBody>['mirror'];
export type UpdateMirror = z.output<typeof UpdateMirrorBody>['mirror'];
export type CreateUpstream = z.output<typeof CreateUpstreamBody>['upstream'];
export type UpdateUpstream = z.output<typeof UpdateUpstreamBody>['upstream'];

/** The upstream a new mirror gives inline, when it names none by id (CreateMirrorBody holds it to one of them). */
export function inlineUpstream(m: CreateMirror): NonNullable<CreateMirror['upstream']> {
  if (!m.upstream) throw new ValidationError(ONE_UPSTREAM, { field: 'upstream_id' });
  return m.upstream;
}

export const IdParams = z.object({ id: z.string().min(1).max(64) });
export const JobsQuery = z.object({ mirror: z.string().min(1).max(64) });
