/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * What a person sees while an agent does an ordinary task on their own tab: a scripted 20-step task
 * across two sites (read, scroll, snapshot, ordinary links, a search box, a GET search form, one profile
 * saved by POST), through the real extension, every decision clicked in the popup. Counted: the grant
 * prompts (sites the popup asks the person about) and the approvals. Goal: none for reading, scrolling
 * and snapshots, at most one grant prompt per new origin, at most 3 approvals in all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENABLED_CONFIG, type HttpResult } from '../gateway/fixtures/gateway.js';
import { startApprovalSites, type ApprovalSites } from '../security/fixtures/approval-site.js';
import { sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { startStage, waitFor, type Stage } from './fixtures/paired-setup.js';
import { shareInPopup, type PopupPage } from './fixtures/popup-page.js';

describe("a benign 20-step task on the user's tab", () => {
  let sites: ApprovalSites;
  let stage: Stage;
  let sid: string;
  let popup: PopupPage;
  let docsOrigin: string;

  const { call, ok, refOf, asOwner } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const approvalsOfSession = async () =>
    ((await asOwner('GET', '/v1/approvals')).body.approvals as { approval_id: string; session_id: string }[])
      .filter((approval) => approval.session_id === sid)
      .map((approval) => approval.approval_id);

  before(async () => {
    sites = await startApprovalSites();
    docsOrigin = new URL(sites.docsUrl('/')).origin;
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control, command_timeout: 20 } },
        // Nothing allowed by configuration: the shared site and what the person grants, no more.
        safety: { approval_timeout_s: 15, approvals: { user_tab: 'all' } },
      },
      browserArgs: [sites.resolverRule],
    });
    ({ sid, popup } = await shareInPopup(stage, sites.shopUrl('/neutral'), {
      title: 'errands',
      sites: [docsOrigin],
    }));
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await sites?.close();
  });

  it('asks for 1 grant (the one new site) and 1 approval (the POST save) over 20 steps', async () => {
    // The grant prompts: every site the popup offers the person a Grant button for.
    const offered = new Set<string>();
    const grantPrompts = async () => {
      const asked = await stage.browser.cdp.evaluate<string[]>(
        popup.session,
        `[...document.querySelectorAll('button[data-decision="grant"]')].map((b) => b.dataset.site)`,
      );
      for (const site of asked) offered.add(site);
    };
    await waitFor('the popup to offer the requested site', () =>
      popup.visible(`button[data-decision="grant"][data-site="${docsOrigin}"]`),
    );
    await grantPrompts();
    await popup.click(`button[data-decision="grant"][data-site="${docsOrigin}"]`);
    await waitFor('the grant to hold', async () =>
      ((await stage.gw.request('GET', `/v1/sessions/${sid}`)).body.sites.granted as string[]).includes(
        docsOrigin,
      ),
    );
    /** Approves in the popup whatever the call waits for, as the person would. */
    const approvingInPopup = async (running: Promise<HttpResult>) => {
      const id = await waitFor('the approval to be asked for', async () => (await approvalsOfSession())[0]);
      const selector = `button[data-approval="${id}"][data-decision="approve"]`;
      await waitFor('the popup to offer approve', () => popup.visible(selector));
      await popup.click(selector);
      return running;
    };
    const readingSteps: string[] = [];
    const read =
      (tool: string, args: Record<string, unknown> = {}) =>
      async () => {
        const before = (await approvalsOfSession()).length;
        await ok(tool, args);
        if ((await approvalsOfSession()).length !== before) readingSteps.push(tool);
      };
    const steps: (() => Promise<unknown>)[] = [
      read('browser_snapshot'),
      async () => ok('browser_type', { ref: await refOf('textbox "Search box"'), text: 'lamp' }),
      async () => ok('browser_click', { ref: await refOf('link "Next page"') }),
      () => ok('browser_navigate', { url: sites.shopUrl('/fetch') }),
      async () => ok('browser_click', { ref: await refOf('button "Read notes"') }),
      () => ok('browser_navigate', { url: sites.shopUrl('/search-form') }),
      async () => ok('browser_type', { ref: await refOf('textbox "Query"'), text: 'desk lamp' }),
      async () => ok('browser_click', { ref: await refOf('button "Search"') }),
      read('browser_snapshot'),
      () => ok('browser_navigate', { url: sites.docsUrl('/guide') }),
      read('browser_scroll', { direction: 'down' }),
      read('browser_read'),
      async () => ok('browser_click', { ref: await refOf('link "Chapter 2"') }),
      () => ok('browser_back'),
      read('browser_screenshot'),
      () => ok('browser_navigate', { url: sites.shopUrl('/form-post') }),
      async () => ok('browser_type', { ref: await refOf('textbox "Nickname"'), text: 'ann' }),
      async () => {
        const saved = await approvingInPopup(call('browser_click', { ref: await refOf('button "Save"') }));
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
      },
      read('browser_snapshot'),
      () => ok('browser_navigate', { url: sites.docsUrl('/guide') }),
    ];
    assert.equal(steps.length, 20);
    for (const step of steps) {
      await step();
      await grantPrompts();
    }
    const approvals = (await approvalsOfSession()).length;
    process.stdout.write(
      `\n# a 20-step benign task on the user's tab: ${offered.size} grant prompt(s) for 1 new origin, ${approvals} approval(s), ${readingSteps.length} for reading steps (goal ≤ 1, ≤ 3, 0)\n`,
    );
    assert.deepEqual(readingSteps, [], 'reading, scrolling and snapshots asked for nothing');
    assert.deepEqual([...offered], [docsOrigin], 'one grant prompt, for the one new origin');
    assert.ok(approvals <= 3, `${approvals} approvals`);
    assert.equal(approvals, 1, 'only the POST save asked');
    assert.equal(sites.hits('/results'), 1);
    assert.equal(sites.hits('/save'), 1);
  });
});
