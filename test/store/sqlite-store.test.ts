import fs from 'node:fs';
import { SqliteStore } from '../../src/gateway/store/sqlite-store.js';
import { describeStore } from './store-cases.js';
import { tempDir } from '../helpers/temp-dir.js';

describeStore('SQLite', () => {
  const home = tempDir('store');
  return Promise.resolve({
    open: () => Promise.resolve(SqliteStore.open(home)),
    dispose: () => Promise.resolve(fs.rmSync(home, { recursive: true, force: true })),
  });
});
