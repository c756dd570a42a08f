import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { lastUseIsStale, PresentedSecrets } from '../auth/presented-secrets';
import { NotFoundError, UnauthorizedError } from '../lib/errors';
import type { AgentTokenRow, AgentTokensRepository } from '../pools/tokens-repository';
import type { AgentStatus } from '../contract/wire/jsonapi';
import type { AgentRow, AgentsRepository } from './repository';
import { present } from '../lib/invariant';

/** What an agent reports of itself; `unknown` and `errored` are the watchdog's. */
export const REPORTED_STATUSES = ['idle', 'busy', 'exited'] as const satisfies readonly AgentStatus[];
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

export interface Instruction {
  action: 'continue' | 'stop';
  /** Why the agent must stop. */
  reason?: string;
  /** Seconds until the next report. */
  ping_interval_seconds: number;
}

/** Boxyard's agent protocol: register with a pool token, report status, get told to stop. */
export class AgentProtocolService {
  private readonly secrets = new PresentedSecrets();

  constructor(
    private readonly repo: AgentsRepository,
    private readonly tokens: AgentTokensRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly pingSeconds: number,
  ) {}

  /**
   * The agent token behind a presented secret; unauthorized (the agent protocol's "stop") when it is unknown or was
   * revoked. Found by its hash (an index), as API tokens are: no comparison of secrets in JavaScript.
   */
  async authenticate(secret: string | undefined): Promise<AgentTokenRow> {
    const hash = secret ? this.secrets.hashOf(secret) : '';
    const token = secret ? await this.tokens.tokenByHash(hash) : undefined;
    if (!token) {
      throw new UnauthorizedError(
        'The agent token is unknown or was revoked. Create a new token for the pool and restart the agent with it.',
      );
    }
    const now = this.clock.now();
    if (lastUseIsStale(token.last_used_at, now)) {
      await this.tokens.touchToken(token.id, now.toISOString());
    }
    return token;
  }

  async register(
    token: AgentTokenRow,
    input: { name: string | null; ip: string },
  ): Promise<{ agent: AgentRow; ping_interval_seconds: number }> {
    const now = this.clock.now().toISOString();
    const id = this.ids.id('agent');
    await this.repo.insertAgent({
      id,
      pool_id: token.pool_id,
      token_id: token.id,
      name: input.name,
      status: 'idle',
      ip_address: input.ip,
      last_ping_at: now,
      created_at: now,
    });
    const agent = present(await this.repo.agentById(id), `agent ${id} is read back after its insert`);
    return { agent, ping_interval_seconds: this.pingSeconds };
  }

  /** One statement when the report is taken; only a refused one reads the agent to say why. */
  async report(token: AgentTokenRow, agentId: string, status: ReportedStatus, ip: string): Promise<Instruction> {
    const told = (reason: string): Instruction => ({ action: 'stop', reason, ping_interval_seconds: this.pingSeconds });
    if (
      await this.repo.report(agentId, token.id, {
        status,
        last_ping_at: this.clock.now().toISOString(),
        ip_address: ip,
      })
    ) {
      return status === 'exited'
        ? told('exited as reported')
        : { action: 'continue', ping_interval_seconds: this.pingSeconds };
    }
    const agent = await this.repo.agentById(agentId);
    if (!agent || agent.token_id !== token.id) {
      throw new NotFoundError(
        `Agent "${agentId}" is not registered with this token (it may have been deleted). Start the agent again to register anew.`,
      );
    }
    return told(`agent ${agent.id} is ${agent.status}; start a new agent`);
  }
}
