import type { HttpClient, HttpResponse } from './http';

/**
 * Packer's vagrant-registry post-processor (packer-plugin-vagrant 1.1.x, hcp-sdk-go 0.172) replayed call by call with
 * the bodies it sends (../shared/spec/hcp-vagrant-registry-clients.md §2–3): the models' zero times and null lists
 * included, JSON with the encoder's trailing newline, no Content-Type on body-less calls, and every success exactly
 * 200. The upload is a plain PUT with no Authorization and no Content-Type.
 */
export interface PackerRegistryRun {
  /** `box_tag`'s two halves. */
  registry: string;
  box: string;
  version: string;
  provider: string;
  architecture: string;
  defaultArchitecture?: string;
  boxDescription?: string;
  boxPrivate?: boolean;
  versionDescription?: string;
  /** `box_checksum`, `TYPE:VALUE` as the user typed it. */
  checksum?: string;
  /** `box_download_url`: nothing is uploaded. */
  downloadUrl?: string;
  file?: Buffer;
  noRelease?: boolean;
  /** HCP_VAGRANT_REGISTRY_DIRECT_UPLOAD_LIMIT, lowered as tests lower the daemon's. */
  directLimit?: number;
}

const ZERO = '0001-01-01T00:00:00.000Z';
const API = '/vagrant/2022-09-30/registry';

/** What a failed call shows: the plugin prints only `message`. */
export class PackerError extends Error {
  constructor(
    readonly step: string,
    readonly res: HttpResponse | { status: number; text: string; json?: unknown },
  ) {
    const message = (res.json as { message?: string } | undefined)?.message || 'Unexpected error encountered';
    super(`${step}: ${res.status} ${message}`);
  }
}

export async function replayPackerRegistry(api: HttpClient, run: PackerRegistryRun): Promise<string[]> {
  const calls: string[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    calls.push(`${method} ${path}`);
    const res =
      body === undefined
        ? await api.request(method, path)
        : await api.request(method, path, { body: `${JSON.stringify(body)}\n`, raw: true });
    return res;
  };
  const ok = async (step: string, method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status !== 200) throw new PackerError(step, res);
    return res.json as Record<string, unknown>;
  };
  const esc = encodeURIComponent;
  const boxPath = `${API}/${esc(run.registry)}/box/${esc(run.box)}`;
  const versionPath = `${boxPath}/version/${esc(run.version)}`;
  const providerPath = `${versionPath}/provider/${esc(run.provider)}`;
  const archPath = `${providerPath}/architecture/${esc(run.architecture)}`;

  const read = await call('GET', boxPath);
  if (read.status === 404) {
    const created = await ok('create box', 'POST', `${API}/${esc(run.registry)}/boxes`, {
      created_at: ZERO,
      ...(run.boxDescription ? { description: run.boxDescription } : {}),
      ...(run.boxPrivate ? { is_private: true } : {}),
      name: run.box,
      updated_at: ZERO,
      versions: null,
    });
    const op = created.operation as { id: string; location: { organization_id: string; project_id: string } };
    const { organization_id: org, project_id: project } = op.location;
    const waited = await ok(
      'wait',
      'GET',
      `/operation/2020-05-05/organizations/${esc(org)}/projects/${esc(project)}/operations/${esc(op.id)}/wait?timeout=60s`,
    );
    const operation = waited.operation as { state?: string; error?: unknown } | undefined;
    if (operation?.state !== 'DONE' || operation.error !== undefined)
      throw new PackerError('wait', { status: 200, text: JSON.stringify(waited), json: operation?.error });
  } else if (read.status !== 200) {
    throw new PackerError('Failure retrieving box', read);
  }

  const v = await call('GET', versionPath);
  let version = v.json as { version?: { state?: string } } | undefined;
  if (v.status === 404) {
    version = (await ok('create version', 'POST', `${boxPath}/versions`, {
      created_at: ZERO,
      ...(run.versionDescription ? { description: run.versionDescription } : {}),
      name: run.version,
      providers: null,
      updated_at: ZERO,
    })) as typeof version;
  } else if (v.status !== 200) throw new PackerError('read version', v);
  if (!version?.version) throw new Error('Invalid response body for version read');

  const p = await call('GET', providerPath);
  if (p.status === 404) {
    await ok('create provider', 'POST', `${versionPath}/providers`, {
      architectures: null,
      created_at: ZERO,
      name: run.provider,
      updated_at: ZERO,
    });
  } else if (p.status !== 200) throw new PackerError('read provider', p);

  const [type, value] = run.checksum ? run.checksum.split(':', 2) : ['NONE', undefined];
  const boxData = {
    ...(value ? { checksum: value } : {}),
    checksum_type: type,
    created_at: ZERO,
    ...(run.downloadUrl ? { download_url: run.downloadUrl } : {}),
    updated_at: ZERO,
  };
  const a = await call('GET', archPath);
  if (a.status === 404) {
    await ok('create architecture', 'POST', `${providerPath}/architectures`, {
      architecture_type: run.architecture,
      box_data: boxData,
      created_at: ZERO,
      ...(run.architecture === run.defaultArchitecture ? { default: true } : {}),
      updated_at: ZERO,
    });
  } else if (a.status === 200) {
    await ok('update architecture', 'PUT', archPath, { box_data: boxData, created_at: ZERO, updated_at: ZERO });
  } else throw new PackerError('read architecture', a);

  if (!run.downloadUrl && run.file) {
    const direct = run.file.length <= (run.directLimit ?? 5368709120);
    const prepared = await ok('prepare upload', 'GET', `${archPath}/${direct ? 'direct/upload' : 'upload'}`);
    const put = await uploadPut(api, prepared.url as string, run.file);
    calls.push(`PUT ${new URL(prepared.url as string).pathname.replace(/[^/]+$/, ':secret')}`);
    if (put.status !== 200) throw new PackerError('upload', put);
    if (direct) await ok('complete upload', 'PUT', `${archPath}/direct/complete/${esc(prepared.object as string)}`);
  }

  const state = version.version.state;
  if (!run.noRelease && (state === undefined || state === 'UNRELEASED'))
    await ok('release', 'PUT', `${versionPath}/release`);
  return calls;
}

/** Go's `http.NewRequest("PUT", url, file)` with ContentLength set: no Authorization, no Content-Type. */
export async function uploadPut(api: HttpClient, url: string, file: Buffer) {
  const res = await api.send(url, { method: 'PUT', body: new Uint8Array(file) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}
