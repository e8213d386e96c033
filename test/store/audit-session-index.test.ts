/**
 * The SQLite audit log's session index is built in bulk (src/gateway/audit/session-index.ts): rows
 * past the last move are read from the log's tail. A reader must see each session's rows exactly as
 * they are in the log, in order, in every page, before, across and after a move, after a purge, and
 * after a gateway killed in the middle of a move.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AuditStore } from '../../src/gateway/audit/audit-store.js';
import type { AuditEntry } from '../../src/gateway/audit/audit-entry.js';
import { openDatabase, type Db } from '../../src/gateway/store/database.js';
import { tempDir } from '../helpers/temp-dir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SESSIONS = ['s-a', 's-b', 's-c', 's-d', 's-e', 's-f', 's-g'];

/** A small deterministic generator: the same sequence of folds on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Each session's ids as the log holds them: the reference, read without any index. */
function idsOf(db: Db, session: string): number[] {
  return db
    .prepare<[], { id: number; session_id: string }>('SELECT id, session_id FROM audit_log ORDER BY id')
    .all()
    .filter((row) => row.session_id === session)
    .map((row) => row.id);
}

const ids = (entries: AuditEntry[]) => entries.map((entry) => entry.id);

/** Every way a reader pages through a session agrees with the log. */
function assertSessionReads(store: AuditStore, db: Db, session: string): void {
  const all = idsOf(db, session);
  for (const limit of [1, 3, 50, 1000]) {
    assert.deepEqual(ids(store.list({ session, limit })), all.slice(-limit), `newest ${limit} of ${session}`);
  }
  const paged: number[] = [];
  let cursor = 0;
  for (;;) {
    const page = ids(store.list({ session, after: cursor, limit: 4 }));
    if (page.length === 0) break;
    paged.push(...page);
    cursor = page.at(-1) ?? cursor;
  }
  assert.deepEqual(paged, all, `${session} paged forward by 4`);
}

describe('the audit log session index built in bulk', () => {
  const homes: string[] = [];
  const home = () => {
    const dir = tempDir('audit-index');
    homes.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads every session's rows as the log holds them, in every page, before, across and after moves and a purge", () => {
    const db = openDatabase(home());
    const store = new AuditStore(db, 25);
    const next = random(7);
    let seq = 0;
    for (let fold = 0; fold < 40; fold++) {
      const rows = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
        const i = seq++;
        return {
          entry: {
            at_ms: 1_000 + i,
            session_id: SESSIONS[Math.floor(next() * SESSIONS.length)] ?? 's-a',
            principal_id: 'owner',
            controller_id: null,
            backend: 'controller',
            action: 'browser_tabs',
            arguments: {},
            origin: null,
            outcome: 'ok',
            duration_ms: 1,
            tool_call_id: null,
          },
          journalRef: `aj-test.jsonl#${i}`,
        };
      });
      store.fold(rows, new Map([['aj-test.jsonl', seq]]));
      for (const session of SESSIONS) assertSessionReads(store, db, session);
    }
    const { upto } = db.prepare('SELECT upto FROM audit_indexed').get() as { upto: number };
    assert.ok(upto >= 25 && upto < seq, `moves happened and left a tail (upto ${upto} of ${seq})`);
    assert.equal(store.purgeBefore(1_000 + Math.floor(seq / 2)), Math.floor(seq / 2));
    for (const session of SESSIONS) assertSessionReads(store, db, session);
    const { stale } = db
      .prepare('SELECT count(*) AS stale FROM audit_session_index WHERE id NOT IN (SELECT id FROM audit_log)')
      .get() as { stale: number };
    assert.equal(stale, 0, 'purged rows leave no index entries');
    db.close();
  });

  it('loses and doubles nothing when the gateway is killed in the middle of a move', async () => {
    const dir = home();
    const rows = 20_000;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures/session-index-child.ts'), dir, String(rows)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('moving\n')) resolve();
      });
      child.once('exit', () => reject(new Error(`child ended before its move: ${out}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const movedBefore = Number(/moved (\d+)/.exec(out)?.[1]);

    const db = openDatabase(dir);
    const store = new AuditStore(db);
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(count('SELECT count(*) AS n FROM audit_log'), rows, 'every folded row is in the log');
    assert.equal(
      count('SELECT upto AS n FROM audit_indexed'),
      movedBefore,
      'the killed move is rolled back with its upto',
    );
    assert.equal(
      count('SELECT count(*) AS n FROM audit_session_index'),
      movedBefore,
      'the first move is whole',
    );
    for (const session of ['sess-0', 'sess-1', 'sess-499', 'sess-999'])
      assertSessionReads(store, db, session);
    // The next move takes the whole tail, once.
    store.indexSessions();
    assert.equal(count('SELECT count(*) AS n FROM audit_session_index'), rows);
    for (const session of ['sess-0', 'sess-1', 'sess-499', 'sess-999'])
      assertSessionReads(store, db, session);
    db.close();
  });
});
