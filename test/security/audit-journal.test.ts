/**
 * The audit journal: a row is on disk before the call is answered, and reaches the SQLite log exactly
 * once, whoever folds it (the gateway, a second gateway, `tabgate audit`) and whenever its gateway died.
 * Real files and a real SQLite store in a temporary home.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openAuditReader } from '../../src/cli/commands/audit.js';
import { AuditJournal, journalDir } from '../../src/gateway/audit/audit-journal.js';
import { AuditStore, type NewAuditEntry } from '../../src/gateway/audit/index.js';
import { openDatabase, type Db } from '../../src/gateway/store/database.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { makeHome } from '../gateway/fixtures/gateway.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
});

function freshHome(): string {
  const home = makeHome();
  homes.push(home);
  return home;
}

const row = (id: string): NewAuditEntry => ({
  at_ms: Date.now(),
  session_id: 's1',
  principal_id: 'owner',
  controller_id: 'c1',
  backend: 'controller',
  action: 'browser_snapshot',
  arguments: {},
  origin: null,
  outcome: 'ok',
  duration_ms: 1.5,
  tool_call_id: id,
});

/** The pid of a process that has exited: what a killed gateway's journal is named after. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/** A journal file as a gateway with this pid would have left it. */
function leaveJournal(home: string, pid: number, text: string): string {
  fs.mkdirSync(journalDir(home), { recursive: true });
  const file = path.join(journalDir(home), `${pid}-${'ab'.repeat(8)}.jsonl`);
  fs.writeFileSync(file, text);
  return file;
}

const line = (id: string) => JSON.stringify(row(id)) + '\n';

function callIds(db: Db): string[] {
  return (
    db.prepare('SELECT tool_call_id FROM audit_log ORDER BY id').all() as { tool_call_id: string }[]
  ).map((r) => r.tool_call_id);
}

function readIds(home: string): string[] {
  const reader = openAuditReader(home);
  try {
    return reader.store.list({ limit: 1000 }).map((e) => e.tool_call_id ?? '');
  } finally {
    reader.close();
  }
}

describe('audit journal', () => {
  it('has the row in a file on disk as soon as append returns, before any fold', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = new AuditJournal({ home, store: new AuditStore(db), log: silentLogger });
    journal.append(row('on-disk'));
    const files = fs.readdirSync(journalDir(home));
    assert.equal(files.length, 1);
    assert.match(fs.readFileSync(path.join(journalDir(home), files[0] as string), 'utf8'), /"on-disk"/);
    assert.deepEqual(callIds(db), []);
    journal.flush();
    assert.deepEqual(callIds(db), ['on-disk']);
    journal.close();
    db.close();
  });

  it('folds the journal a killed gateway left once, at the next start, and deletes it', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const file = leaveJournal(home, deadPid(), line('a') + line('b') + line('c'));
    const journal = new AuditJournal({ home, store: new AuditStore(db), log: silentLogger });
    assert.deepEqual(callIds(db), ['a', 'b', 'c']);
    assert.equal(fs.existsSync(file), false);
    journal.close();
    const again = new AuditJournal({ home, store: new AuditStore(db), log: silentLogger });
    again.close();
    assert.deepEqual(callIds(db), ['a', 'b', 'c']);
    db.close();
  });

  it('lets tabgate audit show rows a killed gateway had not folded yet, without the gateway', () => {
    const home = freshHome();
    openDatabase(home).close();
    leaveJournal(home, deadPid(), line('killed-1') + line('killed-2'));
    assert.deepEqual(readIds(home), ['killed-1', 'killed-2']);
    assert.deepEqual(readIds(home), ['killed-1', 'killed-2']);
    assert.deepEqual(fs.readdirSync(journalDir(home)), []);
  });

  it('never folds a row twice when a reader folds a running gateway’s journal first', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = new AuditJournal({ home, store: new AuditStore(db), log: silentLogger });
    journal.append(row('one'));
    journal.append(row('two'));
    assert.deepEqual(readIds(home), ['one', 'two']);
    // The running gateway's journal is folded by the reader but left in place for it.
    assert.equal(fs.readdirSync(journalDir(home)).length, 1);
    journal.append(row('three'));
    journal.flush();
    assert.deepEqual(callIds(db), ['one', 'two', 'three']);
    journal.close();
    assert.deepEqual(callIds(db), ['one', 'two', 'three']);
    assert.deepEqual(fs.readdirSync(journalDir(home)), []);
    db.close();
  });

  it('skips a line that is not a row, folds the rest and says so in the log', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    leaveJournal(home, deadPid(), line('before') + '{"not":"a row"}\n' + 'garbage\n' + line('after'));
    new AuditJournal({ home, store: new AuditStore(db), log }).close();
    assert.deepEqual(callIds(db), ['before', 'after']);
    assert.ok(lines.some((l) => l.includes('audit journal lines unreadable') && l.includes('skipped=2')));
    db.close();
  });

  it('keeps every whole line of a journal torn mid-line and drops only the torn tail', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    leaveJournal(home, deadPid(), line('whole') + line('torn').slice(0, 40));
    new AuditJournal({ home, store: new AuditStore(db), log }).close();
    assert.deepEqual(callIds(db), ['whole']);
    assert.ok(lines.some((l) => l.includes('torn line')));
    assert.deepEqual(fs.readdirSync(journalDir(home)), []);
    db.close();
  });

  it('leaves the journal of a gateway that is still running, after folding it', () => {
    const home = freshHome();
    const db = openDatabase(home);
    // This process stands for the other gateway: it is alive.
    const file = leaveJournal(home, process.pid, line('live'));
    new AuditJournal({ home, store: new AuditStore(db), log: silentLogger }).close();
    assert.deepEqual(callIds(db), ['live']);
    assert.equal(fs.existsSync(file), true);
    db.close();
  });

  it('moves to a fresh file past 1 MiB without losing or repeating a row', () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = new AuditJournal({ home, store: new AuditStore(db), log: silentLogger });
    const ids = Array.from({ length: 6000 }, (_, i) => `r${i}`);
    const seen = new Set<string>();
    for (const id of ids) {
      journal.append(row(id));
      for (const name of fs.readdirSync(journalDir(home))) seen.add(name);
    }
    journal.flush();
    assert.ok(seen.size >= 2, `rotated (files seen: ${seen.size})`);
    assert.deepEqual(callIds(db), ids);
    journal.close();
    db.close();
  });
});
