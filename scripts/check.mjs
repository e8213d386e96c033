// `npm run check`: the type check, lint, import cycles, formatting, generated docs and commit titles. The type-aware
// lint takes as long as all the others together and each runs on one core, so the lint runs beside the
// others, one after another (82 s → ~55 s on a 2-core machine). Each check's output is printed whole
// when it ends, so two never interleave; the exit code is non-zero when any failed.
import { spawn } from 'node:child_process';

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const ok = code === 0;
      process.stdout.write(`${ok ? '✔' : '✖'} ${script}\n${output}`);
      resolve(ok);
    });
  });
}

async function inTurn(scripts) {
  let ok = true;
  for (const script of scripts) ok = (await run(script)) && ok;
  return ok;
}

const results = await Promise.all([
  run('lint'),
  inTurn(['typecheck', 'lint:cycles', 'format:check', 'docs:check', 'commits:check']),
]);
process.exit(results.every(Boolean) ? 0 : 1);
