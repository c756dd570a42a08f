import { z } from 'zod';

// zod compiles object parsers with new Function() unless told not to, and probes for it when the
// first object schema is built. The UI's Content Security Policy allows no eval
// (daemon/src/http/guards/security-headers.ts) and reports that probe as a violation, so this runs
// before any module that builds a schema: main.tsx imports it first.
//
// Forms check what they send against the contract's schemas (components/form-rules.tsx) and show
// each issue beside its field: where a rule carries no words of its own, zod's are said plainly
// here ("Must be at least 1", not "Too small: expected number to be >=1").
z.config({ jitless: true, customError: plainWords });

function plainWords(issue: z.core.$ZodRawIssue): string | undefined {
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' entries' : '';
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1
        ? 'Must not be empty'
        : `Must be at least ${issue.minimum}${unit}`;
    case 'too_big':
      return `Must be at most ${issue.maximum}${unit}`;
    case 'invalid_type':
      if (issue.expected === 'int') return 'Must be a whole number';
      if (issue.expected === 'number') return 'Must be a number';
      return issue.input === undefined ? 'Is missing' : undefined;
    case 'invalid_format':
      return issue.format === 'email' ? 'Must be an e-mail address such as ada@example.com' : undefined;
    default:
      return undefined;
  }
}
