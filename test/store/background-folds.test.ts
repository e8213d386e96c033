/**
 * The embedded store folds audit rows on a worker thread: a fold that waits for state.db's write lock
 * leaves the gateway's thread free, a gateway closing waits for the fold it sent last, and a worker
 * that cannot run hands the folds back to the gateway's thread, which loses none. Real SQLite files
 * and a real worker thread.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { BackgroundFolds } from '../../src/gateway/store/background-folds.js';
import { openDatabase, STATE_DB_FILE } from '../../src/gateway/store/database.js';
import { SqliteStore } from '../../src/gateway/store/sqlite-store.js';
import type { InsertedAuditRow } from '../../src/gateway/store/store.js';
import { createLogger } from '../../src/log/logger.js';
import { auditRow } from './store-cases.js';
import { tempDir } from '../helpers/temp-dir.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = tempDir('folds');
  homes.push(dir);
  return dir;
}

const rows = (refs: number[]) => refs.map((n) => ({ entry: auditRow(n, 's_folds'), journalRef: `f#${n}` }));

/** What state.db holds, read by a connection of the test's own. */
function auditRowsIn(dir: string): number {
  const db = new Database(path.join(dir, STATE_DB_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Whether a promise has settled after the event loop has turned (the worker's answer included). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  return done;
}

test("a fold waiting for state.db's write lock leaves the gateway's thread free, and lands once the lock is free", async () => {
  const dir = home();
  const store = SqliteStore.open(dir);
  const folded: InsertedAuditRow[][] = [];
  store.audit.onFolded?.((inserted) => folded.push([...inserted]));
  // Another writer (a second gateway on the same file, the CLI's purge) holds the write lock.
  const other = new Database(path.join(dir, STATE_DB_FILE));
  other.exec('BEGIN IMMEDIATE');
  try {
    // On the gateway's thread this fold would block it in SQLite's busy wait, then fail.
    const fold = store.audit.fold(rows([1, 2, 3]), new Map([['f', 300]]));
    assert.equal(await settled(fold), false, 'the fold waits for the lock, off this thread');
    other.exec('ROLLBACK');
    await fold;
  } finally {
    other.close();
  }
  assert.equal(auditRowsIn(dir), 3);
  assert.deepEqual(
    folded.map((batch) => batch.map((row) => row.entry.tool_call_id)),
    [['call_1', 'call_2', 'call_3']],
  );
  // A row folded again (the journal after a crash) is skipped, and no listener hears of it.
  await store.audit.fold([...rows([3]), ...rows([4])], new Map([['f', 400]]));
  assert.deepEqual(
    folded[1]?.map((row) => row.entry.tool_call_id),
    ['call_4'],
  );
  assert.ok((folded[1]?.[0]?.id ?? 0) > (folded[0]?.[2]?.id ?? Infinity), 'ids in commit order');
  assert.equal(await store.audit.journalOffset('f'), 400);
  await store.close();
});

test('closing the store waits for the fold it was handed last', async () => {
  const dir = home();
  const store = SqliteStore.open(dir);
  const fold = store.audit.fold(rows([1, 2]), new Map());
  await store.close();
  await fold;
  assert.equal(auditRowsIn(dir), 2);
});

test("a worker that cannot run hands its folds to the gateway's thread, with a warning, and loses none", async () => {
  const dir = home();
  const db = openDatabase(dir);
  const lines: string[] = [];
  const log = createLogger({ write: (line) => lines.push(line) });
  const broken = path.join(dir, 'broken-worker.mjs');
  fs.writeFileSync(broken, "throw new Error('this worker cannot start');\n");
  const folds = BackgroundFolds.start(path.join(dir, STATE_DB_FILE), log, pathToFileURL(broken));
  assert.ok(folds, 'the worker file exists, so a worker is started');
  const store = new SqliteStore(db, path.join(dir, STATE_DB_FILE), null, folds);
  // Handed over before the worker has failed: folded here once it has.
  await store.audit.fold(rows([1, 2]), new Map());
  assert.equal(folds.running, false);
  assert.ok(lines.some((line) => line.includes('audit folds run on the gateway thread again')));
  await store.audit.fold(rows([3]), new Map());
  assert.equal(auditRowsIn(dir), 3);
  await store.close();
});
