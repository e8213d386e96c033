import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../src/gateway/store/sqlite-store.js';
import { describeStore } from './store-cases.js';

describeStore('SQLite', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-store-'));
  return Promise.resolve({
    open: () => Promise.resolve(SqliteStore.open(home)),
    dispose: () => Promise.resolve(fs.rmSync(home, { recursive: true, force: true })),
  });
});
