import type { AccountTables } from '../auth/tables';
import type { RegistryTables } from '../registry/tables';
import type { BlobTables } from '../blobs/uploads/tables';
import type { OrgTables } from '../orgs/tables';
import type { WorkspaceTables } from '../workspaces/tables';
import type { PoolTables } from '../pools/tables';
import type { AgentTables } from '../agents/tables';
import type { MirrorTables } from '../mirror/tables';

/** The whole schema as Kysely sees it: each feature declares its own tables beside its repository. */
export interface Database
  extends AccountTables,
    RegistryTables,
    BlobTables,
    OrgTables,
    WorkspaceTables,
    PoolTables,
    AgentTables,
    MirrorTables {}
