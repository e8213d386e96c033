#!/usr/bin/env node
// The published entry: runs the compiled CLI (npm run build writes dist/).
import('../dist/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    console.error('tabgate is not built yet: run `npm run build` first (npm ci does not build).');
    process.exit(1);
  }
  throw error;
});
