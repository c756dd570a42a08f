import type { Command } from 'commander';
import { hostname } from 'node:os';
import { clientFetch } from '../tls/client-fetch';
import { BoxyardAgent } from './agent-client';

const print = (line: string): void => void process.stdout.write(`${line}\n`);

/**
 * `boxyard agent`: the one definition of the command, in the `boxyard` CLI (cli.ts) and in the agent program the
 * daemon serves as one file (agents/program.ts), so that the command line the web UI hands out works with either.
 */
export function addAgentCommand(program: Command): Command {
  return program
    .command('agent')
    .description('run a Boxyard agent for an agent pool (see docs/agent-pools.md)')
    .requiredOption('--url <url>', 'the daemon URL, e.g. http://boxyard.lan:4780')
    .option('--token <token>', 'an agent token of the pool (or env BOXYARD_AGENT_TOKEN, which keeps it out of ps)')
    .option('--name <name>', 'the agent name shown in the pool (default: this host name)')
    .option(
      '--ca-file <file>',
      'trust this CA too: a daemon on --tls auto (written by boxyard trust; env BOXYARD_CA_FILE)',
    )
    .action(async (opts) => {
      const token = opts.token ?? process.env.BOXYARD_AGENT_TOKEN;
      if (!token) throw new Error('an agent token is required: --token or env BOXYARD_AGENT_TOKEN');
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      const fetchImpl = await clientFetch(opts.caFile ?? process.env.BOXYARD_CA_FILE);
      const agent = new BoxyardAgent({
        url: opts.url,
        token,
        name: opts.name ?? hostname(),
        fetch: fetchImpl,
        log: (line) => print(`${new Date().toISOString()} ${line}`),
      });
      const exit = await agent.run(stop.signal);
      print(`${new Date().toISOString()} agent stopped: ${exit.reason}`);
      process.exit(exit.code);
    });
}
