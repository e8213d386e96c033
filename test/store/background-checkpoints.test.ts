/**
 * state.db's checkpoints run on a worker thread, not in the gateway's commits: the gateway's connection
 * never checkpoints, yet what it wrote reaches state.db itself and the WAL stays bounded; if the worker
 * cannot run, the connection checkpoints itself again. Real SQLite files and a real worker thread.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { BackgroundCheckpoints } from '../../src/gateway/store/background-checkpoints.js';
import { openDatabase, STATE_DB_FILE } from '../../src/gateway/store/database.js';
import { createLogger } from '../../src/log/logger.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempDir } from '../helpers/temp-dir.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = tempDir('checkpoints');
  homes.push(dir);
  return dir;
}

/** Rows written as the audit fold writes them: many small transactions. */
function write(db: ReturnType<typeof openDatabase>, rows: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (text) VALUES (?)');
  const batch = db.transaction((n: number) => {
    for (let i = 0; i < n; i++) insert.run('x'.repeat(300));
  });
  for (let done = 0; done < rows; done += 100) batch(100);
}

/** The rows state.db holds by itself, without its WAL: what a checkpoint has copied into it. */
function rowsInMainFile(dir: string): number {
  const copy = path.join(dir, 'copy.db');
  fs.copyFileSync(path.join(dir, STATE_DB_FILE), copy);
  let db: Database.Database | null = null;
  try {
    db = new Database(copy, { readonly: true });
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'filler'").get();
    return table ? (db.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n : 0;
  } catch {
    // Copied while the worker was writing state.db: a torn copy, read again on the next look.
    return -1;
  } finally {
    db?.close();
    fs.rmSync(copy);
  }
}

test('the gateway never checkpoints; the worker copies its writes into state.db and the WAL stays bounded', async () => {
  const dir = home();
  const db = openDatabase(dir);
  const results: { log: number; checkpointed: number }[] = [];
  const checkpoints = new BackgroundCheckpoints(
    db,
    path.join(dir, STATE_DB_FILE),
    createLogger({ write: () => undefined }),
    {
      startBytes: 256 * 1024,
      everyMs: 20,
      onCheckpoint: (result) => results.push(result),
    },
  );
  try {
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0);
    write(db, 1500);
    const oneRound = fs.statSync(path.join(dir, `${STATE_DB_FILE}-wal`)).size;
    // Written and not checkpointed anywhere yet: state.db by itself does not have the rows.
    assert.equal(rowsInMainFile(dir), 0);
    await waitFor(() => results.some((r) => r.checkpointed > 0 && r.checkpointed === r.log), {
      what: 'a checkpoint of the whole WAL by the worker',
    });
    await waitFor(() => rowsInMainFile(dir) === 1500, { what: 'the rows to reach state.db' });
    // Writing on, the WAL starts over once the worker has copied all of it: after ten rounds it holds
    // about one round, not ten.
    for (let round = 2; round <= 10; round++) {
      write(db, 1500);
      await waitFor(() => rowsInMainFile(dir) === round * 1500, {
        what: `round ${round}'s rows to reach state.db`,
      });
    }
    const wal = fs.statSync(path.join(dir, `${STATE_DB_FILE}-wal`)).size;
    assert.ok(wal < 3 * oneRound, `the WAL is ${wal} bytes after ten rounds of ${oneRound}`);
  } finally {
    await checkpoints.close();
    db.close();
  }
});

test('a worker that cannot run hands checkpoints back to the connection, and says so', async () => {
  const dir = home();
  const db = openDatabase(dir);
  const lines: string[] = [];
  const checkpoints = new BackgroundCheckpoints(
    db,
    path.join(dir, STATE_DB_FILE),
    createLogger({ write: (line) => lines.push(line) }),
    {
      startBytes: 64 * 1024,
      everyMs: 20,
      sqliteModule: path.join(dir, 'no-such-module.js'),
    },
  );
  try {
    write(db, 1000);
    await waitFor(() => db.pragma('wal_autocheckpoint', { simple: true }) === 1000, {
      what: 'the connection to checkpoint itself again',
    });
    assert.ok(lines.some((line) => line.includes('checkpoints run on the gateway thread again')));
  } finally {
    await checkpoints.close();
    db.close();
  }
});

test('past the cap, the connection checkpoints once itself and the WAL starts over', async () => {
  const dir = home();
  // A worker whose checkpoints copy nothing, as one starved by a writer that never pauses.
  const stalled = path.join(dir, 'stalled-sqlite.cjs');
  fs.writeFileSync(
    stalled,
    'module.exports = class { pragma() { return [{ log: 0, checkpointed: 0 }]; } close() {} };',
  );
  const db = openDatabase(dir);
  const walSize = () => fs.statSync(path.join(dir, `${STATE_DB_FILE}-wal`)).size;
  const checkpoints = new BackgroundCheckpoints(
    db,
    path.join(dir, STATE_DB_FILE),
    createLogger({ write: () => undefined }),
    { startBytes: 64 * 1024, capBytes: 512 * 1024, everyMs: 20, sqliteModule: stalled },
  );
  try {
    write(db, 2000);
    assert.ok(walSize() > 512 * 1024, `the WAL is ${walSize()} bytes`);
    await waitFor(() => rowsInMainFile(dir) === 2000, {
      what: 'the connection to copy the WAL into state.db',
    });
    // The next write starts the WAL over and cuts it back.
    write(db, 100);
    assert.ok(walSize() <= 128 * 1024, `the WAL is ${walSize()} bytes`);
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0);
  } finally {
    await checkpoints.close();
    db.close();
  }
});
