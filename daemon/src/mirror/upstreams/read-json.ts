/** An upstream's JSON answers, read with a bound and checked against their shape, or refused with its name. */
import type { z } from 'zod';
import { UpstreamError } from '../../lib/errors';
import { describeIssues } from '../../http/validate';
import type { UpstreamGate } from './http';
import type { UpstreamRow } from './repository';

export function parseJson<T extends z.ZodType>(u: UpstreamRow, schema: T, text: string, where: string): z.output<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UpstreamError(`Upstream "${u.name}" sent invalid JSON for ${where}.`);
  }
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new UpstreamError(
      `Upstream "${u.name}" sent a catalog that does not match the expected shape for ${where}: ${describeIssues(r.error)}.`,
    );
  return r.data;
}

/** Reads a JSON body, refusing more than `limit` bytes (a catalog is small; a hostile one is not). */
export async function boundedText(
  u: UpstreamRow,
  gate: UpstreamGate,
  res: Response,
  limit = 16 * 1024 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of gate.body(u, res)) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new UpstreamError(`Upstream "${u.name}" sent more than ${limit} bytes of JSON.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
