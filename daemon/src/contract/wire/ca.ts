import { z } from 'zod';

/**
 * `GET /api/boxyard/ca`, to anyone: the SHA-256 fingerprint of `--tls auto`'s CA (served at `/ca.pem`), so that the
 * web UI can show every visitor, signed in or not, the step that trusts it before each command it hands out; null
 * when the daemon has no CA of its own (plain HTTP, the user's own certificate or ACME's: nothing to trust). It says
 * nothing `/ca.pem` does not: not the certificate's names, its end, or the CA's history (the overview's, for users).
 */
export const PublicCaAnswer = z.object({ ca: z.object({ fingerprint: z.string() }).nullable() });
export type PublicCaAnswer = z.infer<typeof PublicCaAnswer>;
