import { compile } from 'path-to-regexp';

/**
 * Every path the daemon serves, named once. Routers register these paths (`r.get(BOX.box.path, …)`)
 * and every URL the daemon hands out (catalog and `download_url`, `upload_path`, `callback`,
 * release links, JSON:API links) is filled in from the same entry by `http/urls.ts`, so a path
 * cannot be served one way and linked another. Templates use @koa/router's syntax (path-to-regexp).
 * docs/ARCHITECTURE.md, "Adding an endpoint".
 */

/** The `:name` parameters of a path template. */
type ParamsOf<T extends string> = T extends `${string}:${infer P}/${infer Rest}`
  ? P | ParamsOf<`/${Rest}`>
  : T extends `${string}:${infer P}`
    ? P extends `${infer Q}.${string}`
      ? Q
      : P
    : never;

export interface Route<T extends string = string> {
  /** The template routers register. */
  readonly path: T;
  /** The template with each parameter percent-encoded into place. */
  fill(params: Record<ParamsOf<T>, string>): string;
}

function route<T extends string>(path: T): Route<T> {
  const fill = compile(path, { encode: encodeURIComponent });
  return { path, fill: (params) => fill(params as Record<string, string>) };
}

/** Where each API is mounted. The box registry answers under both API versions. */
export const MOUNTS = {
  v1: '/api/v1',
  v2: '/api/v2',
  boxyard: '/api/boxyard',
  agent: '/api/agent',
  /** HCP's Vagrant box registry API, as Packer's vagrant-registry post-processor calls it (registry/hcp/). */
  hcpVagrant: '/vagrant/2022-09-30',
  /** HCP's operation service: the wait after HCP's box creation. */
  hcpOperation: '/operation/2020-05-05',
  root: '',
} as const;
export type Mount = keyof typeof MOUNTS;
export type BoxApiVersion = 'v1' | 'v2';

const VERSION = '/box/:username/:name/version/:version';
const PROVIDER = `${VERSION}/provider/:provider`;
const PROVIDER_ARCH = `${PROVIDER}/:arch`;

/** The box registry (Vagrant Cloud API), under /api/v1 and /api/v2. */
export const BOX = {
  authenticate: route('/authenticate'),
  twoFactorCode: route('/two-factor/request-code'),
  user: route('/user/:username'),
  search: route('/search'),
  boxes: route('/boxes'),
  box: route('/box/:username/:name'),
  versions: route('/box/:username/:name/versions'),
  version: route(VERSION),
  release: route(`${VERSION}/release`),
  revoke: route(`${VERSION}/revoke`),
  providers: route(`${VERSION}/providers`),
  provider: route(PROVIDER),
  providerArch: route(PROVIDER_ARCH),
  upload: route(`${PROVIDER}/upload`),
  uploadArch: route(`${PROVIDER_ARCH}/upload`),
  uploadDirect: route(`${PROVIDER}/upload/direct`),
  uploadDirectArch: route(`${PROVIDER_ARCH}/upload/direct`),
  uploadCallback: route(`${PROVIDER}/upload/direct/:uploadId`),
  uploadCallbackArch: route(`${PROVIDER_ARCH}/upload/direct/:uploadId`),
} as const;

const HCP_BOX = '/registry/:registry/box/:box';
const HCP_VERSION = `${HCP_BOX}/version/:version`;
const HCP_PROVIDER = `${HCP_VERSION}/provider/:provider`;
const HCP_ARCH = `${HCP_PROVIDER}/architecture/:architecture`;

/**
 * HCP's Vagrant registry API (2022-09-30) under /vagrant/2022-09-30, the calls Packer's vagrant-registry makes
 * (../shared/spec/hcp-vagrant-registry-clients.md), and the operation wait under /operation/2020-05-05.
 */
export const HCP = {
  boxes: route('/registry/:registry/boxes'),
  box: route(HCP_BOX),
  versions: route(`${HCP_BOX}/versions`),
  version: route(HCP_VERSION),
  release: route(`${HCP_VERSION}/release`),
  providers: route(`${HCP_VERSION}/providers`),
  provider: route(HCP_PROVIDER),
  architectures: route(`${HCP_PROVIDER}/architectures`),
  architecture: route(HCP_ARCH),
  upload: route(`${HCP_ARCH}/upload`),
  directUpload: route(`${HCP_ARCH}/direct/upload`),
  directComplete: route(`${HCP_ARCH}/direct/complete/:object`),
  /**
   * The upload URL HCP's upload calls hand out: the same sessions as ROOT.uploadTarget (blobs/uploads), under this
   * API's mount so that a refused PUT answers in HCP's error shape.
   */
  uploadTarget: route('/uploads/:secret'),
  operationWait: route('/organizations/:org/projects/:project/operations/:id/wait'),
} as const;

/**
 * An upload URL's PUT (ROOT's or HCP's): its body is a box file the route streams, never parsed, and it answers
 * `Expect: 100-continue` itself once the URL checks out.
 */
export function isUploadTargetPath(path: string): boolean {
  const lower = path.slice(0, MOUNTS.hcpVagrant.length + 9).toLowerCase();
  return lower.startsWith('/uploads/') || lower.startsWith(`${MOUNTS.hcpVagrant}/uploads/`);
}

/**
 * Outside /api: what vagrant and upload clients fetch and send, the catalog `vagrant box add ORG/BOX`
 * reads, health and Terraform's service discovery.
 */
export const ROOT = {
  healthz: route('/healthz'),
  /** For load balancers: 503 while the daemon drains before it stops, or cannot serve. */
  readyz: route('/readyz'),
  terraformDiscovery: route('/.well-known/terraform.json'),
  /** `--tls auto`: the daemon's CA, for clients to trust (PEM, and DER for operating systems' certificate stores). */
  caPem: route('/ca.pem'),
  /** Prometheus' scrape (data/metrics-routes.ts): loopback, or the scrape token. */
  metrics: route('/metrics'),
  caCrt: route('/ca.crt'),
  /** `boxyard agent` as one file, for machines without Boxyard (agents/program-route.ts). */
  agentProgram: route('/boxyard-agent.mjs'),
  /** Tried first by vagrant ≥ 2.4. */
  catalogV2: route('/api/v2/vagrant/:org/:box'),
  catalog: route('/:org/:box'),
  download: route('/:username/boxes/:box/versions/:version/providers/:provider/:arch/vagrant.box'),
  uploadTarget: route('/uploads/:secret'),
  /** OAuth2 client credentials: a service principal's id and secret for an hour's bearer token (HCP's sign-in). */
  oauth2Token: route('/oauth2/token'),
} as const;

/**
 * The web UI's paths, which ui/static.ts serves: `/ui` and everything under it (its pages and `/ui/assets/…`), and,
 * unless `root` is false, `/`, which sends a browser on to `/ui/`.
 */
export function isUiPath(path: string, root = true): boolean {
  return (root && path === '/') || path === '/ui' || path.startsWith('/ui/');
}

/** The HCP Terraform-compatible API (JSON:API), under /api/v2. */
export const TFC = {
  ping: route('/ping'),
  organizations: route('/organizations'),
  organization: route('/organizations/:name'),
  workspaces: route('/organizations/:org/workspaces'),
  workspaceByName: route('/organizations/:org/workspaces/:name'),
  workspace: route('/workspaces/:id'),
  workspaceSafeDelete: route('/workspaces/:id/actions/safe-delete'),
  workspaceByNameSafeDelete: route('/organizations/:org/workspaces/:name/actions/safe-delete'),
  projects: route('/organizations/:org/projects'),
  project: route('/projects/:id'),
  agentPools: route('/organizations/:org/agent-pools'),
  agentPool: route('/agent-pools/:id'),
  agentTokens: route('/agent-pools/:id/authentication-tokens'),
  agentToken: route('/authentication-tokens/:id'),
  poolAgents: route('/agent-pools/:id/agents'),
  agent: route('/agents/:id'),
} as const;

/** The protocol Boxyard agents speak, under /api/agent. */
export const AGENT = {
  register: route('/register'),
  status: route('/agents/:id/status'),
} as const;

/** Boxyard's own API for the web UI and the CLI, under /api/boxyard. */
export const BOXYARD = {
  session: route('/session'),
  /** The web UI's first page: counts, storage, health, recent activity. */
  overview: route('/overview'),
  /** To anyone: the fingerprint of `--tls auto`'s CA, or null (tls/routes.ts). */
  ca: route('/ca'),
  /** The web UI's box list, a page per request (ui/box-list-routes.ts). */
  boxes: route('/boxes'),
  /** The box page's numbers (sizes, downloads per version and provider) and whether the caller may edit. */
  boxStats: route('/boxes/:username/:name/stats'),
  user: route('/user'),
  users: route('/users'),
  /** Usernames as someone types one (adding a member): any signed-in user. */
  userNames: route('/user-names'),
  userNamed: route('/users/:name'),
  userPassword: route('/users/:name/password'),
  tokens: route('/tokens'),
  token: route('/tokens/:id'),
  twoFactor: route('/two-factor'),
  twoFactorTotp: route('/two-factor/totp'),
  twoFactorTotpConfirm: route('/two-factor/totp/confirm'),
  twoFactorSms: route('/two-factor/sms'),
  /** A new set of recovery codes (auth/two-factor/recovery-codes.ts). */
  twoFactorRecoveryCodes: route('/two-factor/recovery-codes'),
  twoFactorMethod: route('/two-factor/:method'),
  organizations: route('/organizations'),
  organization: route('/organizations/:name'),
  member: route('/organizations/:name/members/:username'),
  /** Client ids and secrets that publish to the organization (owners and administrators). */
  servicePrincipals: route('/organizations/:name/service-principals'),
  servicePrincipal: route('/organizations/:name/service-principals/:clientId'),
  /** Agents per status of an organization's pools (the UI's pool list: pools/counts-routes.ts). */
  agentStatusCounts: route('/organizations/:name/agent-status-counts'),
  settings: route('/settings'),
  upstreams: route('/upstreams'),
  upstream: route('/upstreams/:id'),
  mirrors: route('/mirrors'),
  mirror: route('/mirrors/:id'),
  mirrorRun: route('/mirrors/:id/run'),
  mirrorResume: route('/mirrors/:id/resume'),
  mirrorPlans: route('/mirror-plans'),
  mirrorJobs: route('/mirror-jobs'),
  mirrorJob: route('/mirror-jobs/:id'),
  mirrorJobCancel: route('/mirror-jobs/:id/cancel'),
  cache: route('/cache'),
  import: route('/import/:username/:box/:version'),
  // The mirroring API's actions (mirror/actions/routes.ts).
  upstreamTest: route('/upstreams/:id/test'),
  cacheSize: route('/cache/size'),
  importFolder: route('/import-folder'),
  exportFolder: route('/export'),
} as const;
