/**
 * Why a connection to an upstream failed, in the network's terms a person can act on ("nothing
 * answers at 127.0.0.1:8080", "the name x does not resolve"), never the HTTP library's words
 * ("fetch failed", "bad port", "ECONNREFUSED"). The gate (`http.ts`) words every failure of a
 * connection with this, so the connection test, jobs and the pull-through cache say the same.
 */

/** TLS verification codes (OpenSSL's, as Node names them) that mean "no CA we trust signed this". */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
]);

const NO_NAME = new Set(['ENOTFOUND', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const NO_ROUTE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

interface Cause {
  code?: string;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
}

/** The innermost cause that carries a code (fetch's TypeError → undici's → the socket's), else the innermost. */
function rootCause(err: unknown): Cause {
  let at = err as Cause | undefined;
  for (let depth = 0; at && depth < 5; depth++) {
    if (at.code && at.code !== 'UND_ERR') return at;
    const inner = (at.cause ?? at.errors?.[0]) as Cause | undefined;
    if (!inner || typeof inner !== 'object') return at;
    at = inner;
  }
  return at ?? {};
}

/** `host:port` of a URL, with the scheme's port spelled out (a person compares it with what listens). */
function place(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/**
 * Why `url` could not be fetched, from what fetch threw (`err`), as the end of a sentence.
 * `timeoutSeconds`: the timeout that ran out, when it was the timeout that aborted the request.
 */
export function networkWords(url: string, err: unknown, timeoutSeconds?: number): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'its URL is not a valid URL';
  }
  const at = place(u);
  if (timeoutSeconds !== undefined) return `${at} did not answer within ${timeoutSeconds} s`;
  const cause = rootCause(err);
  const code = cause.code ?? '';
  // Node's fetch refuses the ports of other protocols (the Fetch standard's blocked ports) before connecting.
  if (cause.message === 'bad port')
    return `Boxyard does not connect to port ${u.port} (${at}): it belongs to another protocol, so serve the upstream on another port`;
  if (code === 'ECONNREFUSED') return `nothing answers at ${at} (the connection was refused)`;
  if (NO_NAME.has(code)) return `the name ${u.hostname} does not resolve`;
  if (code === 'EAI_AGAIN') return `the name ${u.hostname} does not resolve (the name server did not answer)`;
  if (UNTRUSTED.has(code)) return `the certificate of ${at} is not trusted: give the upstream the CA that signed it`;
  if (code === 'CERT_HAS_EXPIRED') return `the certificate of ${at} has expired`;
  if (code === 'CERT_NOT_YET_VALID') return `the certificate of ${at} is not valid yet (check the clocks)`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate of ${at} is not for the name ${u.hostname}`;
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO')
    return `${at} does not speak TLS as expected (is it https at that port?)`;
  if (TIMED_OUT.has(code)) return `${at} did not answer in time`;
  if (CLOSED.has(code)) return `${at} closed the connection before answering`;
  if (NO_ROUTE.has(code)) return `there is no route to ${u.hostname}`;
  return cause.message || (err as Error)?.message || 'the connection failed';
}
