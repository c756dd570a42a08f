import { spawn } from 'node:child_process';
import type { Logger } from 'pino';

export interface SmsSender {
  send(to: string, code: string): Promise<void>;
}

/** Sends two-factor codes through a command, a webhook, or (by default) the daemon log. */
export function createSmsSender(opts: { command?: string; webhook?: string; log: Logger }): SmsSender {
  const message = (code: string) => `Your Boxyard verification code is ${code}`;
  if (opts.command) {
    const command = opts.command;
    return {
      send: (to, code) =>
        new Promise((resolve, reject) => {
          const child = spawn(command, {
            shell: true,
            stdio: 'ignore',
            env: { ...process.env, BOXYARD_SMS_TO: to, BOXYARD_SMS_CODE: code, BOXYARD_SMS_MESSAGE: message(code) },
          });
          child.on('error', reject);
          child.on('exit', (rc) => (rc === 0 ? resolve() : reject(new Error(`SMS command exited with ${rc}`))));
        }),
    };
  }
  if (opts.webhook) {
    const url = opts.webhook;
    return {
      async send(to, code) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to, code, message: message(code) }),
        });
        if (!res.ok) throw new Error(`SMS webhook answered ${res.status}`);
      },
    };
  }
  return {
    async send(to, code) {
      opts.log.warn(
        { to, code },
        'two-factor SMS (no sender configured; set BOXYARD_SMS_COMMAND or BOXYARD_SMS_WEBHOOK)',
      );
    },
  };
}
