import pino, { type DestinationStream, type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const REDACTED = '[redacted]';

/** Names whose values are credentials wherever they appear: headers, fields, settings. */
const SECRET_NAME = String.raw`[\w-]*(?:password|passwd|secret|token|authorization|cookie|api[_-]?key)[\w-]*`;

/**
 * What a log line must never carry, found in the serialized line itself (messages, error messages
 * and stacks, URLs, fields at any depth), so a log call written tomorrow is covered too:
 * - a JSON field named like a credential (`"authorization":"…"`, `"upstreamToken":"…"`, `"password":"…"`);
 * - an upload URL's secret (`/uploads/<secret>`: the capability itself);
 * - credentials in query strings (`?access_token=…`, presigned URLs' signatures) and in a URL's
 *   user-info (`https://u:p@host`);
 * - `Bearer …` / `Basic …` and header lines (`X-Atlas-Token: …`) inside free text.
 */
const RULES: Array<[RegExp, string]> = [
  [new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'), `$1"${REDACTED}"`],
  [/(\/uploads\/)[A-Za-z0-9_~.%-]{8,}/g, `$1${REDACTED}`],
  [
    new RegExp(
      String.raw`([?&;](?:access_token|${SECRET_NAME}|code|sig|signature|x-amz-signature|x-amz-credential)=)[^&#\s"\\]+`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"\\]+:[^/\s@"\\]+@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=;-]+/g, `$1 ${REDACTED}`],
  [
    /\b((?:proxy-)?authorization|x-atlas-token|x-service-token|cookie)(\s*[:=]\s*)(?!\s*")[^\s,"\\]+/gi,
    `$1$2${REDACTED}`,
  ],
];

/** The text with every credential the rules above recognise replaced by "[redacted]". */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [re, to] of RULES) out = out.replace(re, to);
  return out;
}

/**
 * Structured paths pino removes before a line is written (headers as Node and Koa hold them,
 * settings and rows with credentials); the scrubber catches what these paths cannot name.
 */
const REDACT_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["x-atlas-token"]',
  'headers["x-service-token"]',
  'headers["proxy-authorization"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-atlas-token"]',
  'req.headers["x-service-token"]',
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'upstreamToken',
  '*.upstreamToken',
  'adminPassword',
  '*.adminPassword',
];

/**
 * The daemon's logger: pino's JSON lines at `level`, with credentials redacted by path and every
 * line scrubbed of secrets before it reaches `destination` (stdout unless given).
 */
export function createLogger(level: LogLevel, destination: DestinationStream = pino.destination(1)): Logger {
  const scrubbed: DestinationStream = { write: (line: string) => destination.write(scrubSecrets(line)) };
  return pino({ level, redact: { paths: REDACT_PATHS, censor: REDACTED } }, scrubbed);
}
