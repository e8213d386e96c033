// `npm run bench`: runs every `bench:<name>` script of package.json in turn, so each benchmark prints
// its own side-by-side table. `npm run bench -- engine` runs only the named ones.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const wanted = process.argv.slice(2);
const names = Object.keys(pkg.scripts ?? {})
  .filter((name) => name.startsWith('bench:'))
  .filter((name) => wanted.length === 0 || wanted.includes(name.slice('bench:'.length)));
let failed = 0;
for (const name of names) {
  console.log(`\n=== npm run ${name}`);
  const result = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
