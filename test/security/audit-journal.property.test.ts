/**
 * The audit journal's invariants (written at the top of src/gateway/audit/audit-journal.ts), checked
 * against random interleavings of calls starting, ending and being answered, folds (asked for, or on
 * the fold timer), journal rotation and kills. A kill leaves the journal files as they stood, or with
 * the write in flight cut at a random byte (its tail NUL, as in a presized file, or truncated away);
 * then the next gateway folds them, and a fresh journal carries on in the same home. At the end, every
 * call that was acknowledged (its `begin` returned) is in the log exactly once, with the outcome its
 * answer carried when it was answered or folded, and as `interrupted` when it never ended; a call whose
 * start line was torn is not in it; nothing else is. Real files and a real SQLite store; only the pid
 * liveness check is told which gateway is gone, since every journal here is this process's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { INTERRUPTED } from '../../src/gateway/audit/audit-entry.js';
import { AuditJournal, type JournalTicket } from '../../src/gateway/audit/audit-journal.js';
import { AuditStore } from '../../src/gateway/audit/audit-store.js';
import { sqliteAuditRows } from '../../src/gateway/store/sqlite-store.js';
import type { JournalFile } from '../../src/gateway/audit/journal-file.js';
import { foldJournals, journalDir } from '../../src/gateway/audit/journal-recovery.js';
import { openDatabase, type Db } from '../../src/gateway/store/database.js';
import { silentLogger } from '../../src/log/logger.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { auditStart } from './fixtures/audit-start.js';

const FOLD_DELAY_MS = 50;
/** Half the 1 MiB a journal file rotates at: two such calls move the journal to a new file. */
const BIG_ARGUMENT = 'x'.repeat(550_000);
const OUTCOMES = ['ok', 'controller_timeout', 'stale_ref'] as const;

type Op =
  | { kind: 'start'; big: boolean }
  | { kind: 'end'; pick: number; outcome: string }
  | { kind: 'answer' }
  | { kind: 'fold' }
  | { kind: 'timer' }
  | { kind: 'kill'; tear: { at: number; how: 'nul' | 'truncate' } | null };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('start' as const), big: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('end' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom(...OUTCOMES),
    }),
  },
  { weight: 4, arbitrary: fc.constant({ kind: 'answer' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'fold' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'timer' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('kill' as const),
      tear: fc.option(
        fc.record({
          at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          how: fc.constantFrom('nul' as const, 'truncate' as const),
        }),
      ),
    }),
  },
);

/** What the model knows of one call, and so which outcomes the log may show for it. */
interface Call {
  id: string;
  ticket: JournalTicket;
  /** `open`: begun, not ended (or its gateway died first); `torn`: its start line's write was cut. */
  state: 'open' | 'ended' | 'torn';
  outcome?: string;
  /** Its answer went out (its end line's write returned), or its row was folded with the outcome. */
  settled: boolean;
}

/** The last write, if the op just before wrote: a kill with a tear cuts it. */
interface LastWrite {
  file: JournalFile;
  from: number;
  to: number;
  started?: Call;
  answered: Call[];
}

/** One gateway's life: its journal, and the model's view of what it holds. */
interface Life {
  journal: AuditJournal;
  open: Call[];
  /**
   * Ended, answer not out yet: their end lines are a microtask or a `setImmediate` away (or carried by
   * a start line).
   */
  unanswered: Call[];
  /** The file the journal writes now: the last started call's. */
  current: JournalFile | null;
}

function allowedOutcomes(call: Call): (string | undefined)[] {
  if (call.state === 'torn') return [undefined];
  if (call.state === 'open') return [INTERRUPTED];
  return call.settled ? [call.outcome] : [call.outcome, INTERRUPTED];
}

/** What the kernel does for a process that died: its descriptors close (here, those into the journal). */
function closeDescriptorsInto(dir: string): void {
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target.startsWith(`${dir}${path.sep}`)) fs.closeSync(Number(fd));
  }
}

function cut(write: LastWrite, dir: string, tear: { at: number; how: 'nul' | 'truncate' }): void {
  const at = write.from + Math.floor(tear.at * (write.to - write.from));
  const file = path.join(dir, write.file.name);
  if (tear.how === 'truncate') {
    fs.truncateSync(file, at);
    return;
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, Buffer.alloc(write.to - at), 0, write.to - at, at);
  } finally {
    fs.closeSync(fd);
  }
}

function logRows(db: Db): Map<string, string[]> {
  const rows = db.prepare('SELECT tool_call_id, outcome FROM audit_log').all() as {
    tool_call_id: string;
    outcome: string;
  }[];
  const byCall = new Map<string, string[]>();
  for (const row of rows)
    byCall.set(row.tool_call_id, [...(byCall.get(row.tool_call_id) ?? []), row.outcome]);
  return byCall;
}

async function runScenario(ops: Op[]): Promise<void> {
  const home = makeHome();
  try {
    await checkScenario(home, ops);
  } finally {
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  }
}

async function checkScenario(home: string, ops: Op[]): Promise<void> {
  const dir = journalDir(home);
  const db = openDatabase(home);
  const store = sqliteAuditRows(new AuditStore(db));
  const calls: Call[] = [];
  const open = async (): Promise<Life> => ({
    journal: await AuditJournal.open({ home, store, log: silentLogger }),
    open: [],
    unanswered: [],
    current: null,
  });
  let life = await open();
  let lastWrite: LastWrite | null = null;

  /** The gateway dies; the next one folds what its journal left, then journals calls of its own. */
  const kill = async (tear: Extract<Op, { kind: 'kill' }>['tear']): Promise<void> => {
    if (tear && lastWrite) {
      cut(lastWrite, dir, tear);
      if (lastWrite.started) lastWrite.started.state = 'torn';
      for (const call of lastWrite.answered) call.settled = false;
    }
    // Its fold timer dies with it.
    mock.timers.reset();
    mock.timers.enable({ apis: ['setTimeout'] });
    await foldJournals(store, dir, silentLogger, () => false);
    // The end lines it had queued for its next microtask or `setImmediate` land in the files just
    // removed: to the fold, as to a killed gateway, they never happened.
    await new Promise((resolve) => setImmediate(resolve));
    closeDescriptorsInto(dir);
    life = await open();
  };

  for (const op of ops) lastWrite = await step(op);

  async function step(op: Op): Promise<LastWrite | null> {
    switch (op.kind) {
      case 'start': {
        const id = `c${calls.length}`;
        const ticket = life.journal.begin(
          auditStart(id, op.big ? { arguments: { text: BIG_ARGUMENT } } : {}),
        );
        assert.ok(ticket.file, 'the start line was written');
        const call: Call = { id, ticket, state: 'open', settled: false };
        calls.push(call);
        life.open.push(call);
        life.current = ticket.file;
        return {
          file: ticket.file,
          from: ticket.file.open.get(ticket.seq) ?? 0,
          to: ticket.file.size,
          started: call,
          answered: [],
        };
      }
      case 'end': {
        const [call] = life.open.splice(op.pick % Math.max(1, life.open.length), 1);
        if (!call) return null;
        call.state = 'ended';
        call.outcome = op.outcome;
        life.journal.end(call.ticket, { outcome: op.outcome, duration_ms: 1, origin: null });
        life.unanswered.push(call);
        return null;
      }
      case 'answer': {
        const current = life.current;
        const from = current?.size ?? 0;
        // The answer leaves once the end lines' shared write is done, or in a reaction that runs after
        // their microtask.
        await (life.journal.endsWritten() ?? Promise.resolve());
        const answered = life.unanswered;
        life.unanswered = [];
        for (const call of answered) call.settled = true;
        return current && current.size > from ? { file: current, from, to: current.size, answered } : null;
      }
      case 'fold':
      case 'timer': {
        if (op.kind === 'fold') await life.journal.flush();
        else mock.timers.tick(FOLD_DELAY_MS);
        // A folded row holds its outcome whatever happens next.
        for (const call of life.unanswered) call.settled = true;
        return null;
      }
      case 'kill':
        await kill(op.tear);
        return null;
    }
  }

  await life.journal.close();
  await foldJournals(store, dir, silentLogger, () => false);
  const rows = logRows(db);
  const offsets = db.prepare('SELECT file FROM audit_journal').all();
  db.close();

  for (const call of calls) {
    const outcomes = rows.get(call.id) ?? [];
    rows.delete(call.id);
    assert.ok(outcomes.length <= 1, `${call.id} is logged once, not ${outcomes.length} times`);
    assert.ok(
      allowedOutcomes(call).includes(outcomes[0]),
      `${call.id} (${call.state}${call.settled ? ', settled' : ''}, ${call.outcome ?? 'no outcome'}) is logged as ${outcomes[0] ?? 'nothing'}`,
    );
  }
  assert.deepEqual([...rows.keys()], [], 'no row for a call that never started');
  assert.deepEqual(fs.readdirSync(dir), [], 'every journal file is folded and gone');
  assert.deepEqual(offsets, [], 'no folded offset outlives its file');
}

describe('audit journal under random calls, folds and kills', () => {
  it('never loses or repeats an acknowledged call, and logs each with the outcome it was answered with', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 50, size: 'max' }), (ops) =>
          runScenario(ops),
        ),
        { numRuns: 100 },
      );
    } finally {
      mock.timers.reset();
    }
  });
});
