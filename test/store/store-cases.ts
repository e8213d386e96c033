/**
 * The one suite every store passes (src/gateway/store/store.ts): run once on a SQLite file and once on
 * a real PostgreSQL. `open` hands out a store on the same database each time it is called (a second
 * gateway, or the same one after a restart); the harness closes what it opened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewAuditEntry } from '../../src/gateway/audit/audit-entry.js';
import type { Store, StoredSession } from '../../src/gateway/store/store.js';

export interface StoreHarness {
  /** A store on the test's database; every call opens another one on the same data. */
  open(): Promise<Store>;
  /** Removes the database. */
  dispose(): Promise<void>;
}

const session = (id: string, principal: string, createdAt: string): StoredSession => ({
  session_id: id,
  title: `title of ${id}`,
  source: 'api',
  principal_id: principal,
  created_at: createdAt,
  binding: null,
  stopped_at: null,
});

export const auditRow = (n: number, sessionId = 'sess_audit'): NewAuditEntry => ({
  at_ms: Date.UTC(2026, 0, 1) + n,
  session_id: sessionId,
  principal_id: 'owner',
  controller_id: n % 2 === 0 ? 'ctl_1' : null,
  backend: n % 2 === 0 ? 'controller' : 'local',
  action: 'browser_click',
  arguments: { ref: `@e${n}` },
  origin: 'https://example.com',
  outcome: 'ok',
  duration_ms: 1.5,
  tool_call_id: `call_${n}`,
});

export function describeStore(name: string, setUp: () => Promise<StoreHarness>): void {
  describe(`store conformance: ${name}`, () => {
    let harness: StoreHarness;
    let store: Store;
    const opened: Store[] = [];
    const open = async () => {
      const s = await harness.open();
      opened.push(s);
      return s;
    };
    before(async () => {
      harness = await setUp();
      store = await open();
    });
    after(async () => {
      for (const s of opened) await s.close();
      await harness.dispose();
    });

    describe('sessions', () => {
      it('inserts a session once and hands back the stored one for a taken id', async () => {
        const first = await store.sessions.insert(session('s_insert', 'alice', '2026-01-01T00:00:00.000Z'));
        assert.equal(first.created, true);
        assert.deepEqual(first.record, session('s_insert', 'alice', '2026-01-01T00:00:00.000Z'));
        const again = await store.sessions.insert(session('s_insert', 'bob', '2026-02-01T00:00:00.000Z'));
        assert.equal(again.created, false);
        assert.equal(again.record.principal_id, 'alice');
        assert.deepEqual(await store.sessions.get('s_insert'), first.record);
        assert.equal(await store.sessions.get('s_missing'), null);
      });

      it("lists only the principal's own sessions, oldest first", async () => {
        await store.sessions.insert(session('s_list_b', 'carol', '2026-01-02T00:00:00.000Z'));
        await store.sessions.insert(session('s_list_a', 'carol', '2026-01-01T00:00:00.000Z'));
        await store.sessions.insert(session('s_list_other', 'dave', '2026-01-01T00:00:00.000Z'));
        const ids = (await store.sessions.list('carol')).map((s) => s.session_id);
        assert.deepEqual(ids, ['s_list_a', 's_list_b']);
        assert.deepEqual(await store.sessions.list('nobody'), []);
      });

      it('deletes a session only for its owner', async () => {
        await store.sessions.insert(session('s_delete', 'erin', '2026-01-01T00:00:00.000Z'));
        const at = '2026-01-01T00:10:00.000Z';
        assert.equal(await store.sessions.delete('s_delete', 'mallory', at), false);
        assert.ok(await store.sessions.get('s_delete'));
        assert.equal(await store.sessions.delete('s_delete', 'erin', at), true);
        assert.equal(await store.sessions.get('s_delete'), null);
        assert.equal(await store.sessions.delete('s_delete', 'erin', at), false);
        const again = await store.sessions.insert(session('s_delete', 'erin', '2026-01-02T00:00:00.000Z'));
        assert.deepEqual(again, {
          record: session('s_delete', 'erin', '2026-01-02T00:00:00.000Z'),
          created: true,
        });
      });

      it('keeps a session a browser served through its deletion: hidden, and bound again when its id returns', async () => {
        await store.sessions.insert(session('s_retire', 'hana', '2026-01-01T00:00:00.000Z'));
        const bound = {
          state: 'stopped' as const,
          since: '2026-01-01T00:01:00.000Z',
          controller_id: 'ctl_7',
        };
        await store.sessions.setBinding('s_retire', bound, bound.since);
        assert.equal(await store.sessions.delete('s_retire', 'hana', '2026-01-01T00:02:00.000Z'), true);
        assert.equal(await store.sessions.get('s_retire'), null);
        assert.deepEqual(await store.sessions.list('hana'), []);
        assert.equal(await store.sessions.delete('s_retire', 'hana', '2026-01-01T00:03:00.000Z'), false);
        // Another principal cannot take the id: it is still taken.
        const taken = await store.sessions.insert(session('s_retire', 'ivan', '2026-01-01T00:04:00.000Z'));
        assert.equal(taken.record.principal_id, 'hana');
        assert.equal(taken.created, false);
        const back = await store.sessions.insert(session('s_retire', 'hana', '2026-01-01T00:05:00.000Z'));
        assert.equal(back.created, true);
        assert.deepEqual(back.record, {
          ...session('s_retire', 'hana', '2026-01-01T00:05:00.000Z'),
          binding: bound,
        });
        assert.deepEqual(await store.sessions.get('s_retire'), back.record);
        // Released by the owner, it is deleted for good.
        await store.sessions.setBinding('s_retire', null, '2026-01-01T00:06:00.000Z');
        assert.equal(await store.sessions.delete('s_retire', 'hana', '2026-01-01T00:07:00.000Z'), true);
        const fresh = await store.sessions.insert(session('s_retire', 'ivan', '2026-01-01T00:08:00.000Z'));
        assert.equal(fresh.record.principal_id, 'ivan');
      });

      it('keeps a binding and its release with the session', async () => {
        await store.sessions.insert(session('s_bind', 'frank', '2026-01-01T00:00:00.000Z'));
        const bound = { state: 'bound' as const, since: '2026-01-01T00:01:00.000Z', controller_id: 'ctl_9' };
        assert.equal(await store.sessions.setBinding('s_bind', bound, bound.since), true);
        assert.deepEqual((await store.sessions.get('s_bind'))?.binding, bound);
        const revoked = {
          state: 'revoked' as const,
          since: '2026-01-01T00:02:00.000Z',
          controller_id: 'ctl_9',
        };
        await store.sessions.setBinding('s_bind', revoked, revoked.since);
        assert.deepEqual((await store.sessions.get('s_bind'))?.binding, revoked);
        await store.sessions.setBinding('s_bind', null, '2026-01-01T00:03:00.000Z');
        assert.equal((await store.sessions.get('s_bind'))?.binding, null);
        assert.equal(await store.sessions.setBinding('s_gone', bound, bound.since), false);
      });

      it("keeps the owner's stop until a resume", async () => {
        await store.sessions.insert(session('s_stop', 'gina', '2026-01-01T00:00:00.000Z'));
        assert.equal(await store.sessions.setStopped('s_stop', '2026-01-01T00:05:00.000Z'), true);
        assert.equal((await store.sessions.get('s_stop'))?.stopped_at, '2026-01-01T00:05:00.000Z');
        assert.equal(await store.sessions.setStopped('s_stop', null), true);
        assert.equal((await store.sessions.get('s_stop'))?.stopped_at, null);
        assert.equal(await store.sessions.setStopped('s_gone', null), false);
      });
    });

    describe('site grants', () => {
      it('records requests and grants in the order first written, and never downgrades a grant', async () => {
        await store.siteGrants.request('s_sites', 'https://a.example', 't1');
        await store.siteGrants.grant('s_sites', 'b.example', 't2');
        await store.siteGrants.grant('s_sites', 'https://a.example', 't3');
        await store.siteGrants.request('s_sites', 'https://a.example', 't4');
        await store.siteGrants.request('s_other', 'c.example', 't5');
        const rows = [
          { session_id: 's_sites', site: 'https://a.example', state: 'granted', changed_at: 't3' },
          { session_id: 's_sites', site: 'b.example', state: 'granted', changed_at: 't2' },
        ];
        assert.deepEqual(await store.siteGrants.list('s_sites'), rows);
        const all = await store.siteGrants.listAll();
        assert.deepEqual(
          all.filter((r) => r.session_id === 's_sites' || r.session_id === 's_other'),
          [...rows, { session_id: 's_other', site: 'c.example', state: 'requested', changed_at: 't5' }],
        );
      });

      it('revokes one site, and drops a whole session', async () => {
        await store.siteGrants.grant('s_revoke', 'a.example', 't1');
        await store.siteGrants.grant('s_revoke', 'b.example', 't1');
        assert.equal(await store.siteGrants.revoke('s_revoke', 'a.example'), true);
        assert.equal(await store.siteGrants.revoke('s_revoke', 'a.example'), false);
        assert.deepEqual(
          (await store.siteGrants.list('s_revoke')).map((r) => r.site),
          ['b.example'],
        );
        await store.siteGrants.dropSession('s_revoke');
        assert.deepEqual(await store.siteGrants.list('s_revoke'), []);
      });
    });

    describe('pairing grants', () => {
      it('stores a grant with its token hash, lists it, and revokes it once', async () => {
        const secretHash = Buffer.from('00ff10aa'.repeat(8), 'hex');
        const grant = await store.pairingGrants.insert({
          grantId: 'g_one',
          secretHash,
          name: 'Laptop',
          origin: 'chrome-extension://abc',
          createdAt: '2026-01-01T00:00:00.000Z',
        });
        assert.deepEqual(grant, {
          grant_id: 'g_one',
          name: 'Laptop',
          origin: 'chrome-extension://abc',
          created_at: '2026-01-01T00:00:00.000Z',
          last_used_at: null,
          revoked_at: null,
        });
        const stored = await store.pairingGrants.get('g_one');
        assert.ok(stored && stored.secretHash.equals(secretHash));
        assert.deepEqual(
          (await store.pairingGrants.listWithHashes()).map((g) => g.grant.grant_id),
          ['g_one'],
        );
        await store.pairingGrants.touch('g_one', '2026-01-01T00:10:00.000Z');
        assert.equal(
          (await store.pairingGrants.get('g_one'))?.grant.last_used_at,
          '2026-01-01T00:10:00.000Z',
        );
        assert.equal(await store.pairingGrants.revoke('g_one', '2026-01-02T00:00:00.000Z'), true);
        assert.equal(await store.pairingGrants.revoke('g_one', '2026-01-03T00:00:00.000Z'), false);
        assert.equal((await store.pairingGrants.get('g_one'))?.grant.revoked_at, '2026-01-02T00:00:00.000Z');
        assert.equal(await store.pairingGrants.revoke('g_unknown', '2026-01-02T00:00:00.000Z'), false);
        assert.equal(await store.pairingGrants.get('g_unknown'), null);
      });
    });

    describe('audit', () => {
      it('folds rows with their journal offsets, skipping a journal row folded before', async () => {
        const rows = [1, 2, 3].map((n) => ({ entry: auditRow(n, 's_fold'), journalRef: `f1#${n}` }));
        await store.audit.fold(rows, new Map([['f1', 300]]));
        const withContext = { ...auditRow(4, 's_fold'), context: { external_call_id: 'ext_4' } };
        await store.audit.fold(
          [rows[2]!, { entry: withContext, journalRef: 'f1#4' }],
          new Map([['f1', 400]]),
        );
        const listed = await store.audit.list({ session: 's_fold', limit: 10 });
        assert.deepEqual(
          listed.map((e) => e.tool_call_id),
          ['call_1', 'call_2', 'call_3', 'call_4'],
        );
        assert.deepEqual(listed[1], {
          id: listed[1]!.id,
          at: new Date(auditRow(2).at_ms).toISOString(),
          session_id: 's_fold',
          principal_id: 'owner',
          controller_id: 'ctl_1',
          backend: 'controller',
          action: 'browser_click',
          arguments: { ref: '@e2' },
          origin: 'https://example.com',
          outcome: 'ok',
          duration_ms: 1.5,
          tool_call_id: 'call_2',
          context: null,
        });
        assert.deepEqual(listed[3]!.context, { external_call_id: 'ext_4' });
        assert.equal(await store.audit.journalOffset('f1'), 400);
        await store.audit.forgetJournal('f1');
        assert.equal(await store.audit.journalOffset('f1'), 0);
      });

      it('pages the newest rows first, then follows forward from a cursor', async () => {
        const rows = Array.from({ length: 7 }, (_, n) => ({
          entry: auditRow(n, 's_page'),
          journalRef: null,
        }));
        await store.audit.fold(rows, new Map());
        const newest = await store.audit.list({ session: 's_page', limit: 3 });
        assert.deepEqual(
          newest.map((e) => e.tool_call_id),
          ['call_4', 'call_5', 'call_6'],
        );
        const all = await store.audit.list({ session: 's_page', limit: 100 });
        const forward = await store.audit.list({ session: 's_page', after: all[1]!.id, limit: 2 });
        assert.deepEqual(
          forward.map((e) => e.tool_call_id),
          ['call_2', 'call_3'],
        );
        assert.ok(forward[0]!.id < forward[1]!.id);
      });

      it('recovers a journal: a start becomes an interrupted row until its end line completes it', async () => {
        const lines = [
          {
            kind: 'start' as const,
            entry: { ...auditRow(1, 's_recover'), outcome: 'interrupted', duration_ms: 0 },
            journalRef: 'r1#1',
          },
          {
            kind: 'start' as const,
            entry: { ...auditRow(2, 's_recover'), outcome: 'interrupted', duration_ms: 0 },
            journalRef: 'r1#2',
          },
          {
            kind: 'end' as const,
            journalRef: 'r1#1',
            outcome: 'site_blocked',
            duration_ms: 7,
            origin: null,
            context: { site_policy: { mode: 'ask' } },
          },
        ];
        const offsets: number[] = [];
        const more = await store.audit.recover('r1', (offset) => {
          offsets.push(offset);
          return { lines, folded: 120, more: false };
        });
        assert.equal(more, false);
        // Recovering again reads from the stored offset and repeats nothing.
        await store.audit.recover('r1', (offset) => {
          offsets.push(offset);
          return { lines, folded: 120, more: false };
        });
        assert.deepEqual(offsets, [0, 120]);
        const listed = await store.audit.list({ session: 's_recover', limit: 10 });
        assert.deepEqual(
          listed.map((e) => [e.tool_call_id, e.outcome, e.duration_ms, e.context]),
          [
            ['call_1', 'site_blocked', 7, { site_policy: { mode: 'ask' } }],
            ['call_2', 'interrupted', 0, null],
          ],
        );
      });

      it('purges rows older than the cutoff', async () => {
        await store.audit.fold(
          [
            { entry: { ...auditRow(1, 's_purge'), at_ms: 1_000 }, journalRef: null },
            { entry: { ...auditRow(2, 's_purge'), at_ms: 5_000 }, journalRef: null },
          ],
          new Map(),
        );
        assert.ok((await store.audit.purgeBefore(2_000)) >= 1);
        assert.deepEqual(
          (await store.audit.list({ session: 's_purge', limit: 10 })).map((e) => e.at),
          [new Date(5_000).toISOString()],
        );
      });

      it('lets a follower see every row of concurrent folds exactly once, in id order', async () => {
        const writers = [store, await open()];
        const seen: number[] = [];
        let after = (await store.audit.list({ limit: 1 })).at(-1)?.id ?? 0;
        const follow = async () => {
          const page = await store.audit.list({ session: 's_follow', after, limit: 1000 });
          for (const entry of page) seen.push(entry.id);
          after = page.at(-1)?.id ?? after;
        };
        const folds = writers.flatMap((writer, w) =>
          Array.from({ length: 20 }, (_, batch) =>
            writer.audit.fold(
              Array.from({ length: 5 }, (_, n) => ({
                entry: auditRow(n, 's_follow'),
                journalRef: `follow-${w}#${batch * 5 + n}`,
              })),
              new Map(),
            ),
          ),
        );
        let done = false;
        const all = Promise.all(folds).finally(() => (done = true));
        // Each round lets the event loop turn: a fold may be answered from another thread or server.
        while (!done) {
          await follow();
          await new Promise((resolve) => setImmediate(resolve));
        }
        await all;
        await follow();
        assert.equal(seen.length, 200);
        assert.equal(new Set(seen).size, 200);
        assert.deepEqual(
          [...seen].sort((a, b) => a - b),
          seen,
        );
      });
    });

    describe('restart', () => {
      it('opens again on the same data: migrations are applied once and the rows stay', async () => {
        await store.sessions.insert(session('s_restart', 'henry', '2026-01-01T00:00:00.000Z'));
        const again = await open();
        assert.equal((await again.sessions.get('s_restart'))?.principal_id, 'henry');
        const third = await open();
        assert.equal((await third.sessions.list('henry')).length, 1);
      });
    });
  });
}
