import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Reads a new password for `boxyard user create | password`: from standard input with
 * `--password-stdin` (one line; scripts pipe it in, as `docker login --password-stdin` does), else
 * from a prompt on the terminal, typed twice, not echoed. Never from the command line, where `ps`
 * and the shell history would show it.
 */
export async function readNewPassword(
  fromStdin: boolean,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  if (fromStdin) return readAll(input);
  if (!input.isTTY) {
    throw new Error('no terminal to ask for the password on: pipe it in with --password-stdin (for example: printf %s "$PASSWORD" | boxyard user …)');
  }
  const [first, second] = await askHidden(['New password: ', 'Repeat the password: '], input, output);
  if (first !== second) throw new Error('the two passwords differ; nothing was changed');
  return first;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('standard input is longer than a password (64 KiB); pipe in only the password');
    chunks.push(Buffer.from(chunk as Buffer));
  }
  // One trailing line break is the end of the line, not part of the password (`echo "$PW" | …`).
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Lines from the terminal without echoing what is typed: one readline for all, so typed-ahead lines are kept. */
async function askHidden(questions: string[], input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string[]> {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input, output: silent, terminal: true });
  const cancelled = new Promise<never>((_, reject) => rl.once('SIGINT', () => reject(new Error('cancelled; nothing was changed'))));
  const answers: string[] = [];
  try {
    for (const q of questions) {
      output.write(q);
      answers.push(await Promise.race([new Promise<string>((resolve) => rl.question('', resolve)), cancelled]));
      output.write('\n');
    }
    return answers;
  } finally {
    rl.close();
  }
}
