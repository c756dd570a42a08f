import Router from '@koa/router';
import type { z } from 'zod';
import { TFC } from '../http/route-table';
import { requireUser } from '../auth/middleware';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { sendList } from '../http/jsonapi/list';
import { PageQuery, pageOf } from '../http/jsonapi/pagination';
import type { Config } from '../config';
import { IdParams, OrgNameParams, OrgParams } from '../http/params';
import { parseInclude } from '../http/jsonapi/query';
import type { OrganizationsService } from '../orgs/tfc-service';
import { organizationResource } from '../orgs/resources';
import { projectResource, workspaceResource } from './resources';
import * as S from './schemas';
import type { ProjectsService } from './projects-service';
import type { WorkspaceAt, WorkspacesService } from './service';

export interface WorkspacesRouteDeps {
  workspaces: WorkspacesService;
  projects: ProjectsService;
  organizations: Pick<OrganizationsService, 'view'>;
  config: Pick<Config, 'publicUrl'>;
}

/** `include=` on a workspace list: its organization, as HCP Terraform includes it (go-tfe's WorkspaceListOptions). */
const LIST_INCLUDES = ['organization'] as const;

/**
 * Workspaces are changed and deleted by id or by organization and name (go-tfe's UpdateByID and Update, DeleteByID and
 * Delete, the tfe provider's SafeDelete); either path's bounded params (http/params.ts) are a WorkspaceAt, and both
 * reach the same service call.
 */
const WORKSPACE_AT = [IdParams, OrgNameParams] as const;

/** Workspaces and projects. */
export function workspacesRoutes(deps: WorkspacesRouteDeps): Router {
  const r = new Router();
  r.get(
    TFC.workspaces.path,
    validated({ params: OrgParams, query: S.WorkspaceListQuery }, async (ctx, { params, query }) => {
      const page = pageOf(query);
      const { org, rows, total } = await deps.workspaces.list(
        requireUser(ctx),
        params.org,
        query['search[name]'],
        page,
      );
      const included = parseInclude(query.include, LIST_INCLUDES).has('organization')
        ? [organizationResource(await deps.organizations.view(requireUser(ctx), org))]
        : undefined;
      sendList(
        ctx,
        rows.map((w) => workspaceResource(w, org.name)),
        { base: baseUrl(ctx, deps.config.publicUrl), page, totalCount: total, included },
      );
    }),
  );
  r.post(
    TFC.workspaces.path,
    validated({ params: OrgParams, body: S.WorkspaceCreateBody }, async (ctx, { params, body }) => {
      const ws = await deps.workspaces.create(requireUser(ctx), params.org, body);
      sendDocument(ctx, document(workspaceResource(ws, ws.organization_name)), 201);
    }),
  );
  r.get(
    TFC.workspaceByName.path,
    validated({ params: OrgNameParams }, async (ctx, { params }) => {
      const ws = await deps.workspaces.showByName(requireUser(ctx), params.org, params.name);
      sendDocument(ctx, document(workspaceResource(ws, ws.org.name)));
    }),
  );
  r.get(
    TFC.workspace.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      const ws = await deps.workspaces.show(requireUser(ctx), params.id);
      sendDocument(ctx, document(workspaceResource(ws, ws.org.name)));
    }),
  );
  const [byId, byName] = WORKSPACE_AT.map((params: z.ZodType<WorkspaceAt>) => ({
    update: validated({ params, body: S.WorkspaceUpdateBody }, async (ctx, { params, body }) => {
      const ws = await deps.workspaces.update(requireUser(ctx), params, body);
      sendDocument(ctx, document(workspaceResource(ws, ws.organization_name)));
    }),
    remove: validated({ params }, async (ctx, { params }) => {
      await deps.workspaces.delete(requireUser(ctx), params);
      sendNoContent(ctx);
    }),
  }));
  r.patch(TFC.workspace.path, byId.update);
  r.patch(TFC.workspaceByName.path, byName.update);
  r.delete(TFC.workspace.path, byId.remove);
  r.delete(TFC.workspaceByName.path, byName.remove);
  /**
   * HCP Terraform's safe delete refuses while the workspace manages resources; Boxyard keeps no
   * state, so it is always safe. The tfe provider destroys a tfe_workspace this way unless
   * force_delete is set.
   */
  r.post(TFC.workspaceSafeDelete.path, byId.remove);
  r.post(TFC.workspaceByNameSafeDelete.path, byName.remove);

  r.get(
    TFC.projects.path,
    validated({ params: OrgParams, query: PageQuery }, async (ctx, { params, query }) => {
      const page = pageOf(query);
      const { org, rows, total } = await deps.projects.list(requireUser(ctx), params.org, page);
      sendList(
        ctx,
        rows.map((p) => projectResource(p, org.name)),
        { base: baseUrl(ctx, deps.config.publicUrl), page, totalCount: total },
      );
    }),
  );
  r.post(
    TFC.projects.path,
    validated({ params: OrgParams, body: S.ProjectCreateBody }, async (ctx, { params, body }) => {
      const p = await deps.projects.create(requireUser(ctx), params.org, body.name);
      sendDocument(ctx, document(projectResource(p, p.organization_name)), 201);
    }),
  );
  r.get(
    TFC.project.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      const p = await deps.projects.show(requireUser(ctx), params.id);
      sendDocument(ctx, document(projectResource(p, p.org.name)));
    }),
  );
  r.patch(
    TFC.project.path,
    validated({ params: IdParams, body: S.ProjectUpdateBody }, async (ctx, { params, body }) => {
      const p = await deps.projects.update(requireUser(ctx), params.id, body);
      sendDocument(ctx, document(projectResource(p, p.organization_name)));
    }),
  );
  r.delete(
    TFC.project.path,
    validated({ params: IdParams }, async (ctx, { params }) => {
      await deps.projects.delete(requireUser(ctx), params.id);
      sendNoContent(ctx);
    }),
  );
  return r;
}
