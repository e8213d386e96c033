/**
 * The audit journal: a call is on disk as soon as it is dispatched, and reaches the SQLite log exactly
 * once with how it ended, whoever folds it (the gateway, the next gateway, `tabgate audit`) and
 * whenever its gateway died. Real files, a real SQLite store and a real SIGKILL.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { openAuditReader } from '../../src/cli/commands/audit.js';
import { AuditJournal } from '../../src/gateway/audit/audit-journal.js';
import { AuditStore } from '../../src/gateway/audit/index.js';
import { sqliteAuditRows } from '../../src/gateway/store/sqlite-store.js';
import type { AuditRows } from '../../src/gateway/store/store.js';
import { endLine, startLine } from '../../src/gateway/audit/journal-lines.js';
import { foldJournals, journalDir } from '../../src/gateway/audit/journal-recovery.js';
import { openDatabase, type Db } from '../../src/gateway/store/database.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { startChildGateway } from '../reliability/fixtures/child-gateway.js';
import { scaled } from '../reliability/fixtures/scale.js';
import { waitFor } from '../helpers/wait-for.js';
import { auditStart as start } from './fixtures/audit-start.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const homes: string[] = [];
after(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
});

/** A gateway's audit path in a child process of its own (a fixture), so the test can kill it -9. */
function journalChild(fixture: string, home: string) {
  return spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures', fixture), home], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function freshHome(): string {
  const home = makeHome();
  homes.push(home);
  return home;
}

const ended = (outcome = 'ok') => ({ outcome, duration_ms: 1.5, origin: null });

/** The pid of a process that has exited: what a killed gateway's journal is named after. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/**
 * What the next gateway makes of a journal a killed gateway left with this text: the rows, what it
 * logged, and the files left in the journal folder.
 */
async function foldLeftJournal(text: string): Promise<{ rows: string[]; logged: string[]; left: string[] }> {
  const home = freshHome();
  const db = openDatabase(home);
  const logged: string[] = [];
  leaveJournal(home, deadPid(), text);
  const journal = await AuditJournal.open({
    home,
    store: sqliteAuditRows(new AuditStore(db)),
    log: createLogger({ write: (l) => logged.push(l) }),
  });
  await journal.close();
  const result = { rows: rows(db), logged, left: fs.readdirSync(journalDir(home)) };
  db.close();
  return result;
}

/** A journal file as a gateway with this pid would have left it. */
function leaveJournal(home: string, pid: number, text: string): string {
  fs.mkdirSync(journalDir(home), { recursive: true });
  const file = path.join(journalDir(home), `${pid}-${'ab'.repeat(8)}.jsonl`);
  fs.writeFileSync(file, text);
  return file;
}

function rows(db: Db): string[] {
  return (
    db.prepare('SELECT tool_call_id, outcome FROM audit_log ORDER BY id').all() as {
      tool_call_id: string;
      outcome: string;
    }[]
  ).map((r) => `${r.tool_call_id}:${r.outcome}`);
}

async function readRows(home: string): Promise<string[]> {
  const reader = await openAuditReader(home);
  try {
    return (await reader.store.list({ limit: 1000 })).map((e) => `${e.tool_call_id ?? ''}:${e.outcome}`);
  } finally {
    await reader.close();
  }
}

describe('audit journal', () => {
  it('has a call in a file on disk as soon as it is dispatched, before it ends', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: silentLogger,
    });
    const ticket = journal.begin(start('on-disk'));
    const files = fs.readdirSync(journalDir(home));
    assert.equal(files.length, 1);
    assert.match(fs.readFileSync(path.join(journalDir(home), files[0] as string), 'utf8'), /"on-disk"/);
    journal.end(ticket, ended('controller_timeout'));
    assert.deepEqual(rows(db), [], 'the row waits for the next fold');
    await journal.flush();
    assert.deepEqual(rows(db), ['on-disk:controller_timeout']);
    await journal.close();
    assert.deepEqual(fs.readdirSync(journalDir(home)), [], 'a clean close leaves no journal');
    db.close();
  });

  it('writes lines at the front of its presized file, so a write never grows it', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: silentLogger,
    });
    journal.begin(start('first'));
    const file = path.join(journalDir(home), fs.readdirSync(journalDir(home))[0] as string);
    const sizeBefore = fs.statSync(file).size;
    journal.begin(start('second'));
    assert.match(fs.readFileSync(file, 'utf8'), /^\{"s":1,.*"first".*\n\{"s":2,.*"second"/);
    assert.equal(fs.statSync(file).size, sizeBefore);
    await journal.close();
    db.close();
  });

  it('keeps a call still open at close in its file, and the next gateway logs it as interrupted', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const store = sqliteAuditRows(new AuditStore(db));
    const journal = await AuditJournal.open({ home, store, log: silentLogger });
    journal.end(journal.begin(start('done')), ended());
    journal.begin(start('still-open'));
    await journal.close();
    await foldJournals(store, journalDir(home), silentLogger, () => false);
    assert.deepEqual(rows(db), ['done:ok', 'still-open:interrupted']);
    db.close();
  });

  it('keeps the outcome of a call answered after its file rotated, for whoever folds after a kill', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const store = sqliteAuditRows(new AuditStore(db));
    const journal = await AuditJournal.open({ home, store, log: silentLogger });
    const long = journal.begin(start('long'));
    const big = { arguments: { text: 'x'.repeat(600_000) } };
    for (const id of ['big1', 'big2', 'after-rotation']) journal.begin(start(id, big));
    assert.equal(fs.readdirSync(journalDir(home)).length, 2, 'rotated');
    // The answer leaves once the end line is written (other calls are in flight: a shared write); the
    // gateway is killed right then.
    journal.end(long, ended('controller_rejected'));
    await journal.endsWritten();
    await foldJournals(store, journalDir(home), silentLogger, () => false);
    assert.ok(rows(db).includes('long:controller_rejected'), rows(db).join(' '));
    await journal.close();
    db.close();
  });

  it('logs every call a gateway killed with SIGKILL had started, once, with the outcomes it knew', async () => {
    const home = freshHome();
    openDatabase(home).close();
    const child = journalChild('journal-child.ts', home);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`journal child exited early (${code})`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const expected = [
      'a:ok',
      'b:controller_rejected',
      'c:ok',
      'd:interrupted',
      'e:interrupted',
      'f:interrupted',
      'g:interrupted',
    ];
    assert.deepEqual((await readRows(home)).sort(), expected);
    assert.deepEqual(fs.readdirSync(journalDir(home)), [], 'the dead gateway’s journal is gone');
    assert.deepEqual((await readRows(home)).sort(), expected, 'reading again adds nothing');
    const db = openDatabase(home);
    await (
      await AuditJournal.open({ home, store: sqliteAuditRows(new AuditStore(db)), log: silentLogger })
    ).close();
    assert.deepEqual(rows(db).sort(), expected, 'the next gateway adds nothing either');
    db.close();
  });

  it('writes the end lines of calls ending beside each other together, once each, in order', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: silentLogger,
    });
    const [a, b, c] = ['a', 'b', 'c'].map((id) => journal.begin(start(id)));
    const file = path.join(journalDir(home), fs.readdirSync(journalDir(home))[0] as string);
    const endSeqs = () =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{"e":'))
        .map((line) => (JSON.parse(line) as { e: number }).e);
    journal.end(a!, ended());
    journal.end(b!, ended('controller_timeout'));
    journal.end(c!, ended());
    const written = journal.endsWritten();
    assert.ok(written, 'calls ending beside others have their answers wait for the shared write');
    assert.deepEqual(endSeqs(), [], 'the write waits for the calls ending in this iteration');
    await written;
    assert.deepEqual(endSeqs(), [1, 2, 3]);
    const lone = journal.begin(start('lone'));
    journal.end(lone, ended());
    assert.equal(journal.endsWritten(), undefined, 'a lone call waits for no later ends');
    await Promise.resolve();
    assert.deepEqual(endSeqs(), [1, 2, 3, 4], 'its end line is written a microtask later');
    await journal.flush();
    assert.deepEqual(rows(db), ['a:ok', 'b:controller_timeout', 'c:ok', 'lone:ok']);
    await journal.close();
    db.close();
  });

  it('has an answered call’s outcome on disk at the instant of its answer, for a kill -9 then', async () => {
    const home = freshHome();
    openDatabase(home).close();
    const child = journalChild('answer-kill-child.ts', home);
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const { signal } = await new Promise<{ signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (_code, signal) => resolve({ signal })),
    );
    assert.equal(signal, 'SIGKILL');
    assert.match(said, /answered/);
    const outcomes = new Map((await readRows(home)).map((row) => row.split(':') as [string, string]));
    assert.equal(outcomes.get('first'), 'ok', [...outcomes].join(' '));
    assert.equal(outcomes.size, 3, 'every dispatched call is in the log');
  });

  it('keeps the outcome of every call a gateway answered before a kill -9 under load', async () => {
    const RUNS = scaled(3, 10);
    const AGENTS = 8;
    const lost: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const home = freshHome();
      const gw = await startChildGateway({ home, config: { audit: { all_backends: true } } });
      const created = await gw.request('POST', '/v1/sessions', {});
      const sessionId = (created.body as { session_id: string }).session_id;
      const answered: string[] = [];
      const killAfter = 200 + run * 150;
      let next = 0;
      let killed = false;
      const agent = async () => {
        // Bounded: stops at the kill, or after 20 × killAfter calls whatever happens.
        while (!killed && next < 20 * killAfter) {
          const id = `r${run}-${next++}`;
          try {
            const response = await fetch(`${gw.url}/v1/sessions/${sessionId}/tools/browser_navigate`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${gw.key}`,
                'content-type': 'application/json',
                'x-tool-call-id': id,
              },
              body: JSON.stringify({ url: `https://kill.example/${id}` }),
              signal: AbortSignal.timeout(10_000),
            });
            await response.text();
            if (response.status === 200) answered.push(id);
          } catch {
            // The gateway died under this call: it was never answered.
          }
          if (!killed && answered.length >= killAfter) {
            killed = true;
            await gw.kill9();
          }
        }
      };
      await Promise.all(Array.from({ length: AGENTS }, agent));
      await gw.kill9();
      const outcomes = new Map(
        (await readRows(home)).map((row) => [
          row.slice(0, row.indexOf(':')),
          row.slice(row.indexOf(':') + 1),
        ]),
      );
      const interrupted = [...outcomes.values()].filter((o) => o === 'interrupted').length;
      console.log(
        `audit kill -9 run ${run + 1}/${RUNS}: ${answered.length} answered, ${interrupted} interrupted (in flight)`,
      );
      for (const id of answered) if (outcomes.get(id) !== 'ok') lost.push(`${id}:${outcomes.get(id)}`);
    }
    assert.deepEqual(lost, [], 'no answered call is logged without its outcome');
  });

  it('folds an ended call by itself on its timer, and leaves a running gateway’s journal to it', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: silentLogger,
    });
    const answered = journal.begin(start('answered'));
    journal.begin(start('running'));
    journal.end(answered, ended());
    assert.deepEqual(await readRows(home), [], 'another process leaves a live journal alone');
    assert.equal(fs.readdirSync(journalDir(home)).length, 1);
    await waitFor(async () => (await readRows(home)).length > 0, {
      what: 'the fold timer to fold the ended call',
    });
    assert.deepEqual(await readRows(home), ['answered:ok']);
    await journal.close();
    db.close();
  });

  it('keeps every character of what a call held through its lines: quotes, newlines, non-ASCII', async () => {
    const odd = 'a "quoted" \\ back\nslash\u2028 ünïcødé 🦊 \u0001';
    const home = freshHome();
    const db = openDatabase(home);
    leaveJournal(
      home,
      deadPid(),
      startLine(
        7,
        start(odd, { session_id: odd, controller_id: null, arguments: { url: odd, n: 2 }, origin: odd }),
      ) + endLine(7, { outcome: 'controller_rejected', duration_ms: 12.5, origin: 'https://other.example' }),
    );
    const store = sqliteAuditRows(new AuditStore(db));
    await (await AuditJournal.open({ home, store, log: silentLogger })).close();
    const [entry] = await store.list({ limit: 10 });
    assert.deepEqual(
      {
        session_id: entry?.session_id,
        controller_id: entry?.controller_id,
        arguments: entry?.arguments,
        origin: entry?.origin,
        tool_call_id: entry?.tool_call_id,
        outcome: entry?.outcome,
        duration_ms: entry?.duration_ms,
      },
      {
        session_id: odd,
        controller_id: null,
        arguments: { url: odd, n: 2 },
        origin: odd,
        tool_call_id: odd,
        outcome: 'controller_rejected',
        duration_ms: 12.5,
      },
    );
    db.close();
  });

  it('skips a line that is not one, folds the rest and says so in the log', async () => {
    const { rows: folded, logged } = await foldLeftJournal(
      startLine(1, start('before')) +
        '{"not":"a line"}\n' +
        'garbage\n' +
        startLine(2, start('after')) +
        endLine(2, ended()),
    );
    assert.deepEqual(folded, ['before:interrupted', 'after:ok']);
    assert.ok(logged.some((l) => l.includes('audit journal lines unreadable') && l.includes('skipped=2')));
  });

  it('keeps every whole line of a journal torn mid-line and drops only the torn tail', async () => {
    const {
      rows: folded,
      logged,
      left,
    } = await foldLeftJournal(startLine(1, start('whole')) + startLine(2, start('torn')).slice(0, 40));
    assert.deepEqual(folded, ['whole:interrupted']);
    assert.ok(logged.some((l) => l.includes('torn line')));
    assert.deepEqual(left, []);
  });

  it('reads a killed gateway’s journal up to its NUL padding, and past a page a power cut lost', async () => {
    const { rows: folded, logged } = await foldLeftJournal(
      startLine(1, start('before-hole')) +
        '\0'.repeat(4096) +
        startLine(2, start('after-hole')) +
        endLine(2, ended()) +
        '\0'.repeat(70_000),
    );
    assert.deepEqual(folded, ['before-hole:interrupted', 'after-hole:ok']);
    assert.deepEqual(
      logged.filter((l) => l.includes('audit journal')),
      [],
      'padding is neither a torn line nor an unreadable one',
    );
  });

  it('lets two gateways started together in one home fold a killed gateway’s journals, each call once', async () => {
    const home = freshHome();
    const pid = deadPid();
    fs.mkdirSync(journalDir(home), { recursive: true });
    const names = ['1', '2', '3', '4'].map((n) => `${pid}-${n.repeat(16)}.jsonl`);
    for (const [i, name] of names.entries())
      fs.writeFileSync(path.join(journalDir(home), name), startLine(1, start(`k${i}`)) + endLine(1, ended()));
    const dbs = [openDatabase(home), openDatabase(home)];
    const [first, second] = dbs.map((db) => sqliteAuditRows(new AuditStore(db))) as [AuditRows, AuditRows];
    // Both list the dead gateway's files; the second is slow, and finds the rest folded and gone.
    let firstDone = (): void => {};
    const firstFolded = new Promise<void>((resolve) => (firstDone = resolve));
    const slow: AuditRows = Object.create(second) as AuditRows;
    slow.recover = async (...args) => {
      await firstFolded;
      return second.recover(...args);
    };
    const journals = await Promise.all([
      AuditJournal.open({ home, store: first, log: silentLogger }).finally(firstDone),
      AuditJournal.open({ home, store: slow, log: silentLogger }),
    ]);
    for (const journal of journals) await journal.close();
    assert.deepEqual(rows(dbs[0]!).sort(), ['k0:ok', 'k1:ok', 'k2:ok', 'k3:ok']);
    assert.deepEqual(fs.readdirSync(journalDir(home)), []);
    for (const db of dbs) db.close();
  });

  it('still logs every call, from memory, when a fresh journal file cannot be opened', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const logged: string[] = [];
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: createLogger({ write: (l) => logged.push(l) }),
    });
    // Root ignores permissions, so the folder is taken away instead: a file now holds its name.
    fs.rmSync(journalDir(home), { recursive: true, force: true });
    fs.writeFileSync(journalDir(home), '');
    const ids = Array.from({ length: 6000 }, (_, i) => `r${i}`);
    for (const id of ids) journal.end(journal.begin(start(id)), ended());
    await journal.flush();
    assert.equal(rows(db).length, ids.length);
    assert.ok(logged.some((l) => l.includes('audit journal file could not be opened')));
    await journal.close();
    db.close();
    fs.rmSync(journalDir(home), { force: true });
  });

  it('moves to a fresh file past 1 MiB, keeping the file of a call still open until it ends', async () => {
    const home = freshHome();
    const db = openDatabase(home);
    const journal = await AuditJournal.open({
      home,
      store: sqliteAuditRows(new AuditStore(db)),
      log: silentLogger,
    });
    const long = journal.begin(start('long'));
    const ids = Array.from({ length: 6000 }, (_, i) => `r${i}`);
    const seen = new Set<string>();
    for (const id of ids) {
      journal.end(journal.begin(start(id)), ended());
      for (const name of fs.readdirSync(journalDir(home))) seen.add(name);
    }
    await journal.flush();
    assert.ok(seen.size >= 2, `rotated (files seen: ${seen.size})`);
    assert.equal(fs.readdirSync(journalDir(home)).length, 2, 'the first file waits for its open call');
    journal.end(long, ended());
    await journal.flush();
    assert.equal(fs.readdirSync(journalDir(home)).length, 1);
    assert.deepEqual(rows(db).sort(), [...ids, 'long'].map((id) => `${id}:ok`).sort());
    await journal.close();
    db.close();
  });
});
