import { z } from 'zod';
import { ARCHITECTURES, BoxName } from './registry';
import { AccountName } from '../names';
import { UPSTREAM_KINDS, type MirrorVisibility } from '../wire/mirror';

/**
 * What the mirroring API's changes take (under /api/boxyard; docs/mirroring.md): the part
 * under `upstream` or `mirror`. mirror/schemas.ts wraps them, adds the checks that need the
 * daemon (a folder path, a version constraint) and the rules between fields; the web UI types
 * what it sends with `z.input` of these. Pure (zod only).
 */

const Name = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.:-]*$/, 'name may contain letters, numbers, spaces, "-", "_", ".", ":"')
  .describe('Up to 64 letters, numbers, spaces, "-", "_", "." and ":". Empty: the URL\'s host, or the folder\'s name.');
/** Write-only: sent once, never read back (the answer says `has_token`). */
const Token = z.string().min(1).max(4096);
/**
 * What an upstream's URL may be, in words: mirror/schemas.ts refuses others with them, the web UI
 * says them beside the field.
 */
export const UPSTREAM_URL_RULE = 'must be an http or https URL, a file: URL or an absolute folder path';
/** An http(s) URL, a file: URL or an absolute folder path (mirror/schemas.ts checks which). */
export const UpstreamUrl = z
  .string()
  .min(1)
  .max(2048)
  .describe(
    "Vagrant Cloud or HCP Vagrant (https://vagrantcloud.com), another Boxyard, a catalog URL, or a folder on the daemon's machine.",
  );

const upstreamFields = {
  kind: z.enum(UPSTREAM_KINDS).optional(),
  /** A CA certificate (PEM) to trust for this upstream (another lab's Boxyard on --tls auto); null clears it. */
  ca: z.string().min(1).max(16_384).nullable().optional(),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .describe('How long to wait for the upstream to answer (1 to 3600 seconds) before it counts as a failure.')
    .optional(),
  max_failures: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .describe('After this many failures in a row (1 to 1000), Boxyard stops asking the upstream for a while.')
    .optional(),
  pause_minutes: z
    .number()
    .int()
    .min(0)
    .max(10_080)
    .describe('How long it stops asking, in minutes (0 to 10080), before it tries the upstream again.')
    .optional(),
};
export const CreateUpstream = z.object({
  name: Name.optional(),
  url: UpstreamUrl,
  token: Token.nullish(),
  ...upstreamFields,
});
/**
 * How an upstream is read where its request says nothing (mirror/upstreams/upstream-row.ts; the web UI shows them as
 * its fields' placeholders). Migration 006 gave the same values to the columns as SQL defaults (kept for rows written
 * before); mirror/upstreams/upstream-row.test.ts checks the two agree.
 */
export const UPSTREAM_DEFAULTS = {
  timeout_seconds: 30,
  /** Failures in a row before the upstream pauses… */
  max_failures: 3,
  /** …for this long. */
  pause_minutes: 5,
} as const satisfies Partial<z.input<typeof CreateUpstream>>;
export const UpdateUpstream = z.object({
  name: Name.optional(),
  url: UpstreamUrl.optional(),
  token: Token.nullable().optional(),
  ...upstreamFields,
});

/** "ORG/BOX" or "ORG", each part a valid local name. */
const BoxOrOrg = z
  .string()
  .max(200)
  .refine((s) => {
    const [ns, box, ...rest] = s.split('/');
    return (
      rest.length === 0 && AccountName.safeParse(ns).success && (box === undefined || BoxName.safeParse(box).success)
    );
  }, 'must be ORG/BOX or ORG, with names of letters, numbers, "-", "_" and "."')
  .describe('ORG/BOX for one box, or ORG for all of its boxes.');

/** A version constraint such as ">= 1.0, < 2.0" or "~> 1.2" (mirror/schemas.ts parses it). */
export const VersionConstraint = z
  .string()
  .min(1)
  .max(256)
  .describe('As in a Vagrantfile: for example >= 1.0, < 2.0 or ~> 1.2.');

const filterFields = {
  /** Versions matching a constraint, or… */
  versions: VersionConstraint.nullable().optional(),
  /** …the latest N (not both). */
  latest: z.number().int().min(1).max(10_000).describe('The newest N versions, 1 to 10000.').nullable().optional(),
  /** Empty or absent: every provider (and architecture). */
  providers: z.array(BoxName).max(50).optional(),
  architectures: z.array(z.enum(ARCHITECTURES)).max(ARCHITECTURES.length).optional(),
  /** true: always private; false: always public; null or absent: as the upstream says (its box API). */
  private: z.boolean().nullable().optional(),
  /** Revoke a mirrored version when the upstream revokes it. */
  follow_revocations: z.boolean().optional(),
  /** Files of one job downloaded at once (the daemon bounds its total across jobs). */
  parallel: z.number().int().min(1).max(16).optional(),
  interval_minutes: z
    .number()
    .int()
    .min(1)
    .max(525_600)
    .describe('Run again every this many minutes. Empty: only when you press Run.')
    .nullable()
    .optional(),
  retain: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .describe('Keep only the newest N mirrored versions, deleting older ones. Empty: keep all.')
    .nullable()
    .optional(),
};

export const CreateMirror = z.object({
  /** An upstream by id, or one given inline (one of them). */
  upstream_id: z.string().min(1).max(64).optional(),
  upstream: z.object({ url: UpstreamUrl, token: Token.nullish(), ca: upstreamFields.ca }).optional(),
  source: BoxOrOrg,
  /** Absent: the same name as the source. */
  target: BoxOrOrg.optional(),
  /** Run at once (the answer then carries the job). */
  run: z.boolean().optional(),
  ...filterFields,
});
export const UpdateMirror = z.object({ target: BoxOrOrg.optional(), ...filterFields });
/**
 * How a mirror runs where its request says nothing (mirror/mirror-row.ts; the move form starts its fields with them).
 * Migrations 006 and 018 gave the same values to the columns as SQL defaults (kept for rows written before);
 * mirror/mirror-row.test.ts checks the two agree.
 */
export const MIRROR_DEFAULTS = {
  /** `private` absent or null: each box as visible as the upstream says. */
  visibility: 'upstream',
  follow_revocations: false,
  /** Files of one job downloaded at once. */
  parallel: 4,
} as const satisfies { visibility: MirrorVisibility } & Partial<z.input<typeof CreateMirror>>;

/**
 * `POST /mirrors/:id/resume` (a paused mirror; the body may be absent): the upstream it reads
 * through from now on, by id or inline, when not its own (which another user's token may hold).
 */
export const ResumeMirror = z.object({
  upstream_id: CreateMirror.shape.upstream_id,
  upstream: CreateMirror.shape.upstream,
});
