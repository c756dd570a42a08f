import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ProviderResult } from '../providers/service';
import { requirePublisher } from '../../auth/middleware';
import { validated } from '../../http/validate';
import { HCP } from '../../http/route-table';
import { receiveUpload } from '../../blobs/uploads/routes';
import { caller } from '../route-helpers';
import { DEFAULT_ARCHITECTURE } from '../schemas';
import type { ProviderRow } from '../repository';
import {
  HcpArchitectureParams,
  HcpCreateArchitecture,
  HcpObjectParams,
  HcpProviderParams,
  HcpUpdateArchitecture,
  providerFields,
} from './schemas';
import { hcpArchitecture } from './serialize';
import { entriesOf, type HcpRouteDeps, urlsOf, versionRef } from './refs';

const locator = (p: HcpArchitectureParams) => ({
  ...versionRef(p),
  provider: p.provider,
  architecture: p.architecture,
});

/** The entry a provider's first architecture takes over: the name's only entry, "unknown", with no file yet. */
const placeholder = (entries: readonly ProviderRow[], type: string) =>
  entries.length === 1 &&
  type !== DEFAULT_ARCHITECTURE &&
  entries[0].architecture === DEFAULT_ARCHITECTURE &&
  entries[0].url === null &&
  entries[0].blob_sha256 === null
    ? entries[0]
    : undefined;

/**
 * Architectures and their files: the provider services' entries, and the upload sessions of blobs/uploads (one-time,
 * expiring URLs whose PUT needs no token, checked against the declared checksum).
 */
export function architectureRoutes(r: Router, deps: HcpRouteDeps) {
  const providers = deps.registry.providers;
  const answer = (ctx: Context, made: ProviderResult) => ({
    architecture: hcpArchitecture(made.box, made.version, made.provider, urlsOf(ctx, deps)),
  });

  r.get(
    HCP.architecture.path,
    validated({ params: HcpArchitectureParams }, async (ctx, { params }) => {
      ctx.body = answer(ctx, await providers.get(caller(ctx), locator(params)));
    }),
  );
  r.post(
    HCP.architectures.path,
    validated({ params: HcpProviderParams, body: HcpCreateArchitecture }, async (ctx, { params, body }) => {
      const p = requirePublisher(ctx);
      const type = body.architecture_type;
      const fields = { ...providerFields(body.box_data), architecture: type, default_architecture: body.default };
      const v = await deps.registry.versions.get(p, versionRef(params));
      const taken = placeholder(entriesOf(v, params.provider), type);
      const at = { ...versionRef(params), provider: params.provider };
      ctx.body = answer(
        ctx,
        taken
          ? await providers.update(p, { ...at, architecture: taken.architecture }, fields)
          : await providers.create(p, versionRef(params), { ...fields, name: params.provider }),
      );
    }),
  );
  r.put(
    HCP.architecture.path,
    validated({ params: HcpArchitectureParams, body: HcpUpdateArchitecture }, async (ctx, { params, body }) => {
      const fields = { ...(body.box_data ? providerFields(body.box_data) : {}), default_architecture: body.default };
      ctx.body = answer(ctx, await providers.update(requirePublisher(ctx), locator(params), fields));
    }),
  );

  // A plain PUT (no token: the secret is the capability), answered in HCP's error shape.
  const uploadUrl = (ctx: Context, secret: string) => urlsOf(ctx, deps).to('hcpVagrant', HCP.uploadTarget, { secret });
  r.put(HCP.uploadTarget.path, receiveUpload(deps.uploads));
  r.get(
    HCP.directUpload.path,
    validated({ params: HcpArchitectureParams }, async (ctx, { params }) => {
      const { secret, id } = await deps.uploads.prepare(requirePublisher(ctx), locator(params), 'direct');
      ctx.body = { url: uploadUrl(ctx, secret), object: id };
    }),
  );
  r.get(
    HCP.upload.path,
    validated({ params: HcpArchitectureParams }, async (ctx, { params }) => {
      const { secret } = await deps.uploads.prepare(requirePublisher(ctx), locator(params), 'plain');
      ctx.body = { url: uploadUrl(ctx, secret) };
    }),
  );
  r.put(
    HCP.directComplete.path,
    validated({ params: HcpObjectParams }, async (ctx, { params }) => {
      await deps.uploads.finishDirect(requirePublisher(ctx), locator(params), params.object);
      ctx.status = 200;
      ctx.body = {};
    }),
  );
}
