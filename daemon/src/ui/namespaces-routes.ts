import Router from '@koa/router';
import { BOXYARD } from '../http/route-table';
import type { OrgService } from '../orgs/service';
import type { Config } from '../config';
import type { NamespacesAnswer } from '../contract/wire-registry';
import { requireUser } from '../auth/middleware';
import { linksFor } from '../registry/route-helpers';
import { boxSummaryJson } from '../registry/serialize';
import type { RegistryService } from '../registry/service';

export interface NamespaceRouteDeps {
  orgs: Pick<OrgService, 'list'>;
  registry: Pick<RegistryService, 'profile'>;
  config: Pick<Config, 'publicUrl'>;
}

/**
 * The signed-in user's namespaces with all their boxes in one answer (under /api/boxyard), where
 * the Vagrant Cloud API needs one `GET /user/:name` per namespace. Each namespace is read as
 * `GET /user/:name` reads it (registry.profile), so the two always show the same boxes. Its size
 * grows with the boxes: the web UI's box list pages instead (box-list-routes.ts, `mine=true`).
 */
export function namespaceRoutes(d: NamespaceRouteDeps): Router {
  const r = new Router();

  r.get(BOXYARD.namespaces.path, async (ctx) => {
    const p = requireUser(ctx);
    const organizations = await d.orgs.list(p);
    const owners = [
      { name: p.user.username, kind: 'user' as const },
      ...organizations.map((o) => ({ name: o.name, kind: 'organization' as const })),
    ];
    const links = linksFor(ctx, d.config);
    const namespaces: NamespacesAnswer['namespaces'] = [];
    for (const owner of owners) {
      const { boxes } = await d.registry.profile(p, owner.name);
      namespaces.push({ ...owner, boxes: boxes.map((b) => boxSummaryJson(b, links)) });
    }
    ctx.body = { namespaces } satisfies NamespacesAnswer;
  });

  return r;
}
