import { z } from 'zod';

// zod compiles object parsers with new Function() unless told not to, and probes for it when the
// first object schema is built. The UI's Content Security Policy allows no eval
// (daemon/src/http/guards/security-headers.ts) and reports that probe as a violation, so this runs
// before any module that builds a schema: main.tsx imports it first.
z.config({ jitless: true });
