import { z } from 'zod';
import type { TokenCheck } from '../../contract/wire/mirror';
import type { GetOptions, UpstreamGate } from './http';
import { boundedText, parseJson } from './read-json';
import type { UpstreamRow } from './repository';

/** An authenticate answer is a small object (`{"user":{…}}`): more is not one. */
const ANSWER_LIMIT = 64 * 1024;

/**
 * The one check of an upstream's token, as vagrant makes it (`vagrant cloud auth login --check`): `GET
 * {base}/api/v2/authenticate`, and on 404 (or 410) `/api/v1/authenticate`, the older API's. Either answering is
 * `accepted`; neither is `not_checked` (a server without a token check: the caller goes on). A refusal (401, 403)
 * throws the gate's UpstreamRefusedError with the upstream's words; anything else the gate's errors.
 */
export async function checkToken(
  u: UpstreamRow,
  gate: UpstreamGate,
  opts: Pick<GetOptions, 'signal' | 'ignorePause'> = {},
): Promise<TokenCheck> {
  const base = u.url.replace(/\/+$/, '');
  for (const api of ['v2', 'v1']) {
    const url = `${base}/api/${api}/authenticate`;
    const res = await gate.find(u, url, { ...opts, accept: 'application/json' });
    if (!res) continue;
    parseJson(u, z.object({}).passthrough(), await boundedText(u, gate, res, ANSWER_LIMIT), url);
    return 'accepted';
  }
  return 'not_checked';
}
