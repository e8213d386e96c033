/**
 * An audit row's `audit` event built from the row a fold handed over is the very text built from the
 * row read back from SQLite: the same fields in the same order, the same time to the millisecond
 * (rows of one second, of other seconds, before 1970 and after 9999, fractional milliseconds), the
 * same arguments and context after their trip through JSON. A dashboard tab sees no difference between
 * a row handed over and one read back after a reconnect.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { AuditStore } from '../../src/gateway/audit/index.js';
import { AuditEvents, auditEventOf } from '../../src/gateway/http/routes/dashboard-audit-event.js';
import { openDatabase } from '../../src/gateway/store/database.js';
import { tempDir } from '../helpers/temp-dir.js';

describe("an audit row's dashboard event", () => {
  const home = tempDir('audit-event');
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  it('is the same text from the folded row as from the row read back', () => {
    const db = openDatabase(home);
    try {
      const store = new AuditStore(db);
      const times = [
        1_764_856_185_007, 1_764_856_185_050, 1_764_856_185_999, 1_764_856_186_000, 1_764_856_185_123.6, 0,
        -1, -62_135_596_800_001, -1_500.5, 253_402_300_800_000, 1_764_856_186_042,
      ];
      const inserted = store.fold(
        times.map((at_ms, i) => ({
          entry: {
            at_ms,
            session_id: `s-${i}`,
            principal_id: 'owner',
            controller_id: i % 2 === 0 ? null : 'ctl-1',
            backend: 'controller',
            action: 'browser_type',
            arguments: { text: '[redacted]', nested: { n: i, list: [1, 'two', null] }, dropped: undefined },
            origin: i % 3 === 0 ? null : 'https://example.com',
            outcome: i % 4 === 0 ? 'ok' : 'timeout',
            duration_ms: i === 1 ? 12.3 : 7,
            tool_call_id: i % 2 === 0 ? null : `call-${i}`,
            ...(i % 3 === 1
              ? { context: { site_policy: { mode: 'ask' } } }
              : i % 3 === 2
                ? { context: null }
                : {}),
          },
          journalRef: `journal#${i}`,
        })),
        new Map(),
      );
      assert.equal(inserted.length, times.length);
      const readBack = store.list({ after: 0, limit: times.length });
      const events = new AuditEvents();
      assert.deepEqual(
        inserted.map((row) => events.ofFolded(row)),
        readBack.map(auditEventOf),
      );
      // A fold repeated after a crash inserts nothing, and hands nothing over.
      assert.deepEqual(store.fold([{ entry: inserted[0]!.entry, journalRef: 'journal#0' }], new Map()), []);
    } finally {
      db.close();
    }
  });
});
