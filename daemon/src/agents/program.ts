import { Command } from 'commander';
import { addAgentCommand } from './cli';

// The agent program the daemon serves as one file (GET /boxyard-agent.mjs, agents/program-route.ts), for machines
// without Boxyard: `node boxyard-agent.mjs agent --url … --token …`, the same command as `boxyard agent`. Bundled on
// its own by scripts/build-daemon.mjs; it reads nothing from a Boxyard package.
const program = new Command('boxyard-agent').description('a Boxyard agent for an agent pool');
addAgentCommand(program);
program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`boxyard agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
