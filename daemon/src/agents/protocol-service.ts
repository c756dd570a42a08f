import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { safeEqual, sha256Hex } from '../lib/crypto';
import { NotFoundError, UnauthorizedError } from '../http/errors';
import { FINAL_STATUSES, type AgentRow, type AgentsRepository, type AgentTokenRow } from './agents-repository';

export type ReportedStatus = 'idle' | 'busy' | 'exited';

export interface Instruction {
  action: 'continue' | 'stop';
  /** Why the agent must stop. */
  reason?: string;
  /** Seconds until the next report. */
  ping_interval_seconds: number;
}

/** An error body that tells a Boxyard agent to stop for good (it never retries these). */
const stop = { extra: { action: 'stop' } };

/** Boxyard's agent protocol: register with a pool token, report status, get told to stop. */
export class AgentProtocolService {
  constructor(
    private readonly repo: AgentsRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly pingSeconds: number,
  ) {}

  /** The agent token behind a presented secret; 401 with "stop" when it is unknown or was revoked. */
  async authenticate(secret: string | undefined): Promise<AgentTokenRow> {
    const hash = secret ? sha256Hex(secret) : '';
    const token = secret ? await this.repo.tokenByHash(hash) : undefined;
    if (!token || !safeEqual(token.token_hash, hash)) {
      throw new UnauthorizedError('The agent token is unknown or was revoked. Create a new token for the pool and restart the agent with it.', stop);
    }
    await this.repo.touchToken(token.id, this.clock.now().toISOString());
    return token;
  }

  async register(token: AgentTokenRow, input: { name: string | null; ip: string }): Promise<{ agent: AgentRow; ping_interval_seconds: number }> {
    const now = this.clock.now().toISOString();
    const id = this.ids.id('agent');
    await this.repo.insertAgent({ id, pool_id: token.pool_id, token_id: token.id, name: input.name, status: 'idle', ip_address: input.ip, last_ping_at: now, created_at: now });
    return { agent: (await this.repo.agentById(id))!, ping_interval_seconds: this.pingSeconds };
  }

  async report(token: AgentTokenRow, agentId: string, status: ReportedStatus, ip: string): Promise<Instruction> {
    const agent = await this.repo.agentById(agentId);
    if (!agent || agent.token_id !== token.id) {
      throw new NotFoundError(`Agent "${agentId}" is not registered with this token (it may have been deleted). Start the agent again to register anew.`, stop);
    }
    const told = (reason: string): Instruction => ({ action: 'stop', reason, ping_interval_seconds: this.pingSeconds });
    if (FINAL_STATUSES.includes(agent.status)) return told(`agent ${agent.id} is ${agent.status}; start a new agent`);
    const taken = await this.repo.report(agentId, { status, last_ping_at: this.clock.now().toISOString(), ip_address: ip });
    if (!taken) return told(`agent ${agent.id} reached a final status; start a new agent`);
    if (status === 'exited') return told('exited as reported');
    return { action: 'continue', ping_interval_seconds: this.pingSeconds };
  }
}
