import { z } from 'zod';
import { JOB_STATES } from './mirror';
import { AgentStatusCounts } from './agent-counts';

/**
 * `GET /api/boxyard/overview`: the web UI's first page for a signed-in user, as the daemon sends it
 * (data/overview-routes.ts builds it). Pure (zod only).
 */

const time = z.string();

export const ACTIVITY_KINDS = ['upload', 'release', 'mirror_job'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Something that happened lately: a file uploaded, a version released, a mirror job run. */
export const ActivityJson = z.object({
  kind: z.enum(ACTIVITY_KINDS),
  at: time,
  /** The box (`ORG/BOX`); for a mirror job, the mirror's target (an organization or `ORG/BOX`). */
  target: z.string(),
  version: z.string().nullable(),
  /** An upload's provider, architecture and size. */
  provider: z.string().nullable(),
  architecture: z.string().nullable(),
  size: z.number().nullable(),
  /** A mirror job's state, the upstream box or organization it copies, and its message. */
  state: z.enum(JOB_STATES).nullable(),
  source: z.string().nullable(),
  message: z.string().nullable(),
});
export type ActivityJson = z.infer<typeof ActivityJson>;

const CheckJson = z.object({ status: z.enum(['ok', 'checking', 'low', 'failing']), detail: z.string().optional() });

/**
 * `--tls auto`'s CA and its name constraints: whether it has them (a CA made by an older Boxyard
 * does not: its key could sign for any site), the names the daemon answers to that it may not
 * certify (left out of the certificate), why a new one is advised (`boxyard tls new-ca`: the CA
 * has no constraints, or a new one would cover those names), and when `boxyard tls new-ca` made it
 * in place of which fingerprint (clients that trusted that one must trust this one).
 */
export const LocalCaJson = z.object({
  name_constrained: z.boolean(),
  names_outside: z.array(z.string()),
  replace: z.enum(['unconstrained', 'names_outside']).nullable(),
  replaced: z.object({ at: time, previous_fingerprint: z.string().nullable() }).nullable(),
});
export type LocalCaJson = z.infer<typeof LocalCaJson>;

export const OverviewJson = z.object({
  /** The daemon's version (package.json). */
  version: z.string(),
  /** What `/healthz` reports. */
  health: z.object({
    status: z.enum(['ok', 'degraded', 'failing']),
    checks: z.object({ database: CheckJson, blobs: CheckJson, disk: CheckJson, tls: CheckJson.optional() }),
  }),
  /**
   * The URLs colleagues reach this daemon at: the public URL, or one per network address when it serves the LAN; empty
   * when it listens on this machine only.
   */
  lan_urls: z.array(z.string()),
  storage: z.object({
    /** The stored box files, each counted once. */
    files_bytes: z.number(),
    disk_free_bytes: z.number(),
    disk_total_bytes: z.number(),
    /** Free space uploads leave alone (BOXYARD_DISK_RESERVE_MB). */
    reserve_bytes: z.number(),
  }),
  /**
   * HTTPS (null: plain HTTP): where the certificate comes from, when it ends, and with `--tls auto`
   * the local CA's SHA-256 fingerprint, which clients check before they trust it (`boxyard trust`),
   * and its name constraints (null otherwise).
   */
  tls: z
    .object({
      mode: z.enum(['auto', 'files', 'acme']),
      not_after: z.string().nullable(),
      fingerprint: z.string().nullable(),
      local_ca: LocalCaJson.nullable(),
    })
    .nullable(),
  /** What the caller may see: boxes, their versions, and distinct stored files. */
  counts: z.object({ boxes: z.number(), versions: z.number(), files: z.number() }),
  /**
   * The organizations the caller belongs to (every one, for an administrator), their agent pools, and those pools'
   * agents by status.
   */
  organizations: z.object({ count: z.number(), pools: z.number(), agents: AgentStatusCounts }),
  /**
   * What the web UI's getting-started checklist reads, in the namespaces the caller manages (their own and their
   * organizations'; every one, for an administrator): boxes, box files people uploaded (not a mirror's or the
   * pull-through cache's copies), released versions; and how many users there are, for an administrator only (null
   * for anyone else, who may not make users).
   */
  getting_started: z.object({
    boxes: z.number(),
    uploads: z.number(),
    releases: z.number(),
    users: z.number().nullable(),
  }),
  /** Newest first. */
  activity: z.array(ActivityJson),
});
export type OverviewJson = z.infer<typeof OverviewJson>;
export const OverviewAnswer = z.object({ overview: OverviewJson });
