/** Dialogs stay open for the agent to answer; waits hold until the page shows what was asked. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DialogResult, WaitResult } from '../../src/protocol/index.js';
import { fullText, refOf, rejectsWith, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

export function dialogCases(get: HarnessRef): void {
  describe('dialogs and waits', () => {
    it(
      'a confirm-gated delete completes only after accept, and everything else waits for the answer',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/dialogs') });
        const rename = await refOf(s, 'button "Rename"');
        const clicked = (await s.call('browser_click', { ref: await refOf(s, 'button "Delete"') })) as {
          dialog?: string;
        };
        assert.equal(clicked.dialog, 'confirm "Delete 3 files?"');
        const shown = await snapshot(s);
        assert.match(shown.snapshot, /^dialog: confirm "Delete 3 files\?"/);
        assert.equal(shown.title, 'Files');
        const refused = await rejectsWith(s.call('browser_click', { ref: rename }), 'dialog_open');
        assert.match(refused.message, /confirm "Delete 3 files\?".*browser_dialog/);
        const answered = (await s.call('browser_dialog', { action: 'accept' })) as DialogResult;
        assert.deepEqual(answered, { handled: 'confirm "Delete 3 files?"', accepted: true });
        assert.match(await fullText(s), /deleted/);
      }),
    );

    it(
      'dismiss leaves the delete undone',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/dialogs') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Delete"') });
        await s.call('browser_dialog', { action: 'dismiss' });
        assert.match(await fullText(s), /3 files/);
      }),
    );

    it(
      'a prompt takes the answer text, and an alert is acknowledged',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/dialogs') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Rename"') });
        assert.match((await snapshot(s)).snapshot, /^dialog: prompt "Your name\?" default="anon"/);
        await s.call('browser_dialog', { action: 'accept', prompt_text: 'Zoe' });
        assert.match(await fullText(s), /name=Zoe/);
        const saved = (await s.call('browser_click', { ref: await refOf(s, 'button "Save"') })) as {
          dialog?: string;
        };
        assert.equal(saved.dialog, 'alert "Saved"');
        await s.call('browser_dialog', { action: 'accept' });
        assert.match(await fullText(s), /after alert/);
      }),
    );

    it(
      'a beforeunload question holds the navigation until it is answered',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/dialogs') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Guard"') });
        const leaving = (await s.call('browser_navigate', { url: get().url('/page2') })) as {
          dialog?: string;
        };
        assert.match(leaving.dialog ?? '', /^beforeunload /);
        await s.call('browser_dialog', { action: 'accept' });
        const landed = (await s.call('browser_wait_for', { text: 'Back to the form' })) as WaitResult;
        assert.equal(landed.title, 'Page two');
      }),
    );

    it(
      'browser_dialog with no dialog open fails with no_dialog, and bad arguments are named',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/dialogs') });
        await rejectsWith(s.call('browser_dialog', { action: 'accept' }), 'no_dialog');
        const bad = await rejectsWith(s.call('browser_dialog', { action: 'maybe' }), 'invalid_arguments');
        assert.match(bad.message, /action/);
      }),
    );

    it(
      'wait_for returns the snapshot once text appears and once text is gone',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/wait') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Start"') });
        const appeared = (await s.call('browser_wait_for', { text: 'Result ready' })) as WaitResult;
        assert.match(appeared.snapshot, /Result ready/);
        assert.ok(appeared.waited_ms > 0);
        const gone = (await s.call('browser_wait_for', { text_gone: 'Loading' })) as WaitResult;
        assert.doesNotMatch(gone.snapshot, /Loading/);
      }),
    );

    it(
      'wait_for a ref to go holds once its element is removed',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/wait') });
        const start = await refOf(s, 'button "Start"');
        await s.call('browser_click', { ref: start });
        const text = (await snapshot(s)).snapshot;
        const spinner = /status[^\n]*?(@e\d+)/.exec(text)?.[1];
        if (spinner) {
          const gone = (await s.call('browser_wait_for', { ref_gone: spinner })) as WaitResult;
          assert.doesNotMatch(gone.snapshot, /Loading/);
        }
        await s.call('browser_navigate', { url: get().url('/tasks/wait') });
        const again = await refOf(s, 'button "Start"');
        await s.call('browser_click', { ref: again });
        await s.call('browser_wait_for', { text: 'Result ready' });
        const gone = (await s
          .call('browser_wait_for', { ref_gone: again, seconds: 1 })
          .catch((e: unknown) => e)) as {
          code?: string;
        };
        assert.equal(gone.code, 'wait_timeout');
      }),
    );

    it(
      'wait_for fails with wait_timeout when the text never comes, and refuses waits over 30 s',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/wait') });
        const late = await rejectsWith(
          s.call('browser_wait_for', { text: 'Never', seconds: 0.3 }),
          'wait_timeout',
        );
        assert.match(late.message, /"Never"/);
        await rejectsWith(s.call('browser_wait_for', { seconds: 31 }), 'invalid_arguments');
        const none = await rejectsWith(s.call('browser_wait_for', {}), 'invalid_arguments');
        assert.match(none.message, /at least one of text, text_gone, ref_gone, seconds/);
        const waited = (await s.call('browser_wait_for', { seconds: 0.2 })) as WaitResult;
        assert.ok(waited.waited_ms >= 150);
      }),
    );
  });
}
