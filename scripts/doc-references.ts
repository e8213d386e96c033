/**
 * Every mention of a markdown file in the code and the docs must name a file in this repository: a
 * reader who clones tabgate has to be able to open what a comment or a page sends them to. Run by
 * `npm run docs:check` (scripts/gen-docs.ts --check).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where references are looked for: the code, the docs, and the two pages at the top. */
const SCANNED = ['src', 'docs', 'README.md', 'CONTRIBUTING.md'];
const SCANNED_EXTENSIONS = /\.(ts|mts|js|mjs|md|json|yaml|html)$/;
/** `docs/protocol.md`, `protocol.md`, `../README.md`: a name ending in `.md`, with its folders. */
const REFERENCE = /(?<![\w./-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.md)\b/g;

function files(abs: string, out: string[]): string[] {
  if (!existsSync(abs)) return out;
  if (!statSync(abs).isDirectory()) {
    if (SCANNED_EXTENSIONS.test(abs)) out.push(abs);
    return out;
  }
  for (const entry of readdirSync(abs)) {
    if (entry !== 'node_modules' && !entry.startsWith('.')) files(path.join(abs, entry), out);
  }
  return out;
}

/**
 * A reference resolves against the repository root (`docs/protocol.md`), the referring file's folder
 * (a link between pages of docs/), or docs/ (a page named by its bare name in prose about docs/).
 */
function resolves(root: string, from: string, reference: string): boolean {
  return [root, path.dirname(from), path.join(root, 'docs')].some((base) =>
    existsSync(path.resolve(base, reference)),
  );
}

/** `file:line: reference` for each mention of a markdown file the repository does not have. */
export function danglingDocReferences(root: string): string[] {
  const dangling: string[] = [];
  for (const file of SCANNED.flatMap((target) => files(path.join(root, target), []))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      for (const match of line.matchAll(REFERENCE)) {
        const reference = match[1] as string;
        if (!resolves(root, file, reference))
          dangling.push(`${path.relative(root, file)}:${index + 1}: ${reference}`);
      }
    });
  }
  return dangling;
}
