#!/usr/bin/env node
// Lines of at most 120 characters in every TypeScript and JavaScript file git knows (`npm run lint`).
// Biome formats code to that width but has no rule for what it cannot wrap: comments are checked
// here. As ESLint's max-len does with ignoreStrings, ignoreTemplateLiterals, ignoreRegExpLiterals
// and ignoreUrls, a line is let through when a string, template or regular expression (which
// cannot be wrapped without changing what it says) or a URL makes it long.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX = 120;
const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateExpression,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.JsxText,
]);

/** The 0-based lines that a literal in `file` touches. */
function literalLines(file) {
  const lines = new Set();
  const visit = (node) => {
    if (LITERALS.has(node.kind)) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      for (let l = first; l <= last; l++) lines.add(l);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lines;
}

const paths = execFileSync('git', ['ls-files', '-z', '*.ts', '*.tsx', '*.mjs', '*.cjs', '*.js'], { encoding: 'utf8' })
  .split('\0')
  .filter((p) => p && !p.includes('/dist/'));
const long = [];
for (const path of paths) {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (!lines.some((line) => line.length > MAX)) continue;
  const kind = path.endsWith('x') ? ts.ScriptKind.TSX : path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const allowed = literalLines(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind));
  lines.forEach((line, i) => {
    if (line.length > MAX && !allowed.has(i) && !/\bhttps?:\/\/\S{20,}/.test(line)) long.push(`${path}:${i + 1}`);
  });
}
if (long.length > 0) {
  process.stderr.write(`${long.join('\n')}\n${long.length} lines are longer than ${MAX} characters\n`);
  process.exit(1);
}
