// `npm run commits:check`: every commit since BASELINE keeps the convention of CONTRIBUTING.md
// "Commits": a title of at most 72 characters, with a prefix naming the kind or the part
// (`fix(audit): …`, `dashboard: …`), then a blank line before any body. Commits before BASELINE are
// left as they landed (most titles then ran long; history is not rewritten). With a message file as
// argument it checks that one message instead: .githooks/commit-msg runs it so.
// Outside a git checkout, or in a shallow clone that lacks BASELINE, there is nothing to check.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The last commit before the convention was checked. */
const BASELINE = '6f331ed2f98803a34f5a65f19aacb75c871e65d8';
const MAX_TITLE = 72;
const PREFIX = /^[a-z][a-z0-9-]*(\([a-z0-9/,._-]+\))?!?: \S/;

/** What is wrong with a commit message, or nothing. */
export function problemsOf(message) {
  const lines = message
    .replace(/^#.*\n?/gm, '')
    .trimEnd()
    .split('\n');
  const title = lines[0] ?? '';
  const problems = [];
  if (title.length > MAX_TITLE)
    problems.push(`its title has ${title.length} characters (at most ${MAX_TITLE})`);
  if (!PREFIX.test(title)) problems.push('its title lacks a prefix such as "fix(audit): " or "docs: "');
  if (title.endsWith('.')) problems.push('its title ends with a period');
  if (lines.length > 1 && lines[1] !== '') problems.push('its title is not followed by a blank line');
  return problems;
}

function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

function commitsSinceBaseline() {
  try {
    git('cat-file', '-e', `${BASELINE}^{commit}`);
  } catch {
    return null;
  }
  const out = git('log', '--format=%H%x00%B%x00', `${BASELINE}..HEAD`);
  const fields = out.split('\0');
  const commits = [];
  for (let i = 0; i + 1 < fields.length; i += 2)
    commits.push({ sha: fields[i].trim(), message: fields[i + 1] });
  return commits;
}

const file = process.argv[2];
if (file) {
  const problems = problemsOf(readFileSync(file, 'utf8'));
  for (const problem of problems) console.error(`commit message: ${problem} (CONTRIBUTING.md, "Commits")`);
  process.exit(problems.length > 0 ? 1 : 0);
}
const commits = commitsSinceBaseline();
if (commits === null) {
  console.log('commits:check: no git history with the baseline commit here; nothing to check');
  process.exit(0);
}
let bad = 0;
for (const { sha, message } of commits) {
  const problems = problemsOf(message);
  if (problems.length === 0) continue;
  bad++;
  console.error(`${sha.slice(0, 9)} ${message.split('\n')[0].slice(0, 80)}\n  ${problems.join('\n  ')}`);
}
if (bad > 0) {
  console.error(`${bad} of ${commits.length} commits break the convention in CONTRIBUTING.md, "Commits"`);
  process.exit(1);
}
console.log(`commits:check: ${commits.length} commits since the baseline keep the convention`);
