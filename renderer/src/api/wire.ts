import { z } from 'zod';
import type { Fetcher, RequestOptions } from './client';

// Lenient views of the wire shapes the UI reads (spec/box-registry-api.md, spec/agent-pools-api.md):
// fields the page can live without are optional, so a server that leaves one out still renders.

const str = z.string().nullish();

export const Provider = z.object({
  name: z.string(),
  architecture: str,
  default_architecture: z.boolean().nullish(),
  hosted: z.boolean().nullish(),
  original_url: str,
  download_url: str,
  checksum: str,
  checksum_type: str,
  size: z.number().nullish(),
  created_at: str,
});
export type Provider = z.infer<typeof Provider>;

export const Version = z.object({
  version: z.string(),
  status: z.string(),
  description_markdown: str,
  created_at: str,
  providers: z.array(Provider).nullish(),
});
export type Version = z.infer<typeof Version>;

export const Box = z.object({
  tag: z.string(),
  name: z.string(),
  username: z.string(),
  short_description: str,
  description_markdown: str,
  private: z.boolean().nullish(),
  downloads: z.number().nullish(),
  updated_at: str,
  current_version: Version.nullish(),
  versions: z.array(Version).nullish(),
});
export type Box = z.infer<typeof Box>;

export const BoxList = z.object({ boxes: z.array(Box) });
export const Namespace = z.object({ username: z.string(), boxes: z.array(Box).nullish() });

export const Organization = z.object({
  name: z.string(),
  email: str,
  created_at: str,
  members: z.array(z.object({ username: z.string(), role: z.string() })).optional(),
});
export type Organization = z.infer<typeof Organization>;

export const ApiToken = z.object({
  id: z.string(),
  description: str,
  created_at: str,
  last_used_at: str,
});
export type ApiToken = z.infer<typeof ApiToken>;

/** A JSON:API resource with the attributes schema given. */
export const resource = <A extends z.ZodType>(attributes: A) =>
  z.object({ id: z.string(), type: z.string(), attributes });

const ToMany = z.object({ data: z.array(z.object({ id: z.string() })).nullish() }).nullish();

export const AgentPool = resource(z.object({
  name: z.string(),
  'organization-scoped': z.boolean().nullish(),
  'agent-count': z.number().nullish(),
  'created-at': str,
})).extend({
  relationships: z.object({ workspaces: ToMany, 'allowed-workspaces': ToMany }).nullish(),
});
export type AgentPool = z.infer<typeof AgentPool>;

export const AgentToken = resource(z.object({
  description: str,
  token: str,
  'created-at': str,
  'last-used-at': str,
}));
export type AgentToken = z.infer<typeof AgentToken>;

export const Agent = resource(z.object({
  name: str,
  status: z.string(),
  'ip-address': str,
  'last-ping-at': str,
}));
export type Agent = z.infer<typeof Agent>;

export const Workspace = resource(z.object({
  name: z.string(),
  description: str,
  'execution-mode': str,
  'agent-pool-id': str,
  'created-at': str,
}));
export type Workspace = z.infer<typeof Workspace>;

/** The ids in a JSON:API to-many relationship, or none. */
export const idsOf = (rel: { data?: Array<{ id: string }> | null } | null | undefined): string[] => (rel?.data ?? []).map((r) => r.id);

export const one = <T extends z.ZodType>(t: T) => z.object({ data: t });
export const many = <T extends z.ZodType>(t: T) => z.object({ data: z.array(t) });

/** Fetches and checks an answer's shape, naming the path when the daemon sends something unexpected. */
export async function load<T extends z.ZodType>(api: Fetcher, schema: T, path: string, opts?: RequestOptions): Promise<z.infer<T>> {
  const body = await api(path, opts);
  const r = schema.safeParse(body);
  if (!r.success) throw new Error(`Unexpected answer from ${path}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
