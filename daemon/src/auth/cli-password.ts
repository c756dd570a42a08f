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
  const first = await askHidden('New password: ', input, output);
  const second = await askHidden('Repeat the password: ', input, output);
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

/** One line from the terminal without echoing what is typed. */
function askHidden(question: string, input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string> {
  output.write(question);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input, output: silent, terminal: true });
  return new Promise((resolve, reject) => {
    rl.on('SIGINT', () => { rl.close(); output.write('\n'); reject(new Error('cancelled; nothing was changed')); });
    rl.question('', (answer) => {
      rl.close();
      output.write('\n');
      resolve(answer);
    });
  });
}
