/** `tabgate extension-path`: where the built extension is, to load it with "Load unpacked". */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

/** `dist/extension` of this package, found from this file whether it runs built (dist/) or from src/. */
export function extensionPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', 'extension');
}

export function extensionPathCommand(program: Command): void {
  program
    .command('extension-path')
    .description('Print the folder of the built browser extension (chrome://extensions → Load unpacked).')
    .action(() => {
      const dir = extensionPath();
      if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
        process.stderr.write(
          `tabgate: the extension is not built yet; run \`npm run build\` (expected in ${dir})\n`,
        );
        process.exitCode = 1;
        return;
      }
      process.stdout.write(dir + '\n');
    });
}
