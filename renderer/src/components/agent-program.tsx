import {
  AGENT_PROGRAM_FILE,
  agentCommand,
  agentProgramLine,
  type ServerAccess,
} from '../../../daemon/src/contract/lan';
import { useServerAccess } from '../api/server-access';
import { TrustStep } from './trust-step';
import { CopyField, Loading, Section } from './ui';

/** What a token placeholder looks like in the agent's command before a token is made. */
const AGENT_TOKEN_PLACEHOLDER = '<agent token>';

/** The agent program fetched from this daemon, then run with a token (contract/lan.ts: one copy of each line). */
export const agentLines = (server: ServerAccess, token: string): string[] => [
  agentProgramLine(server),
  agentCommand(server, token, `node ${AGENT_PROGRAM_FILE}`),
];

/**
 * How to get `boxyard agent` onto a machine: what an agent is, the file this daemon serves (`/boxyard-agent.mjs`, for
 * Node.js 20 or later), and `boxyard agent` where Boxyard itself is installed. The token comes from the section
 * below, which shows the same lines with it.
 */
export function AgentProgram() {
  const { server, fingerprint, ready } = useServerAccess();
  return (
    <Section title="Run an agent">
      <p className="with-links">
        An agent is a program on a machine of yours that takes this pool's work. It needs Node.js 20 or later, and
        nothing else from Boxyard: this server hands it out as one file,{' '}
        <a href={`/${AGENT_PROGRAM_FILE}`}>{AGENT_PROGRAM_FILE}</a>. Make an agent token below: its command, ready to
        copy, fetches the file and starts the agent. Where Boxyard is installed, <code>boxyard agent</code> takes the
        same options.
      </p>
      {!ready ? (
        <Loading what="how to reach this server" />
      ) : (
        <>
          <TrustStep server={server} fingerprint={fingerprint} what="these lines" />
          <CopyField
            label="Get and start an agent"
            lines
            value={agentLines(server, AGENT_TOKEN_PLACEHOLDER).join('\n')}
          />
          <p className="muted small-text">
            Replace <code>{AGENT_TOKEN_PLACEHOLDER}</code> with a token of this pool.
          </p>
        </>
      )}
    </Section>
  );
}
