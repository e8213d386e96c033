/**
 * The conformance harness of Camofox (camofox-conformance-1, -2 and -3.test.ts run the suite's parts
 * on it), through the Camofox backend and a local server that honours Camofox's REST API and drives a
 * real headless Chromium (fixtures/fake-camofox.ts). Camofox is not CDP: the tools its REST API has no
 * call for are refused with `unsupported_on_backend`, and each other difference is declared below with
 * its reason, under the part it belongs to.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { CAMOFOX_TOOLS, CamofoxBackend } from '../../src/gateway/backends/camofox/camofox-backend.js';
import { CheckedResults } from '../../src/gateway/backends/checked-results.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { getTool, TOOLS } from '../../src/protocol/index.js';
import { onTestSite, type ConformanceHarness, type ConformanceSession } from '../conformance/harness.js';
import { backendSessions } from '../conformance/backend-sessions.js';
import type { ConformancePart } from '../conformance/suite.js';
import { startTestSite } from '../testserver/server.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeCamofox, type FakeCamofox } from './fixtures/fake-camofox.js';

/**
 * Camofox's snapshot is its own: one `[role eN] name` line per element, without states, values, link
 * targets or heading levels, paged by the server. tabgate translates it and cannot add what it lacks.
 */
const PLAIN_SNAPSHOT =
  "Camofox's snapshot has one `[role eN] name` line per element: no states, values, link targets, heading levels or tabgate's paging, so there is nothing of these to show (no value is shown either)";
const SINGLE_KEYS = 'Camofox presses single keys: a key combination is refused with unsupported_on_backend';
const LEFT_CLICKS =
  'Camofox clicks once with the left button: another button, a double click or modifiers are refused with unsupported_on_backend';
const OWN_DIALOGS = "Camofox answers a page's dialogs itself and has no call to hold or answer one";

/** The cases Camofox cannot pass by its nature, under the part of the suite (suite.ts) they are in. */
const SKIPPED_CASES: Record<ConformancePart, Record<string, string>> = {
  1: {
    'navigate returns the final url, title, HTTP status and a compact snapshot with refs':
      "Camofox's navigate reply carries no HTTP status (tabgate answers status: null)",
    'navigate reports the status of an error page': "Camofox's navigate reply carries no HTTP status",
    'lists interactive elements with role, accessible name, state and a ref, plus headings': PLAIN_SNAPSHOT,
    'never shows a password value, only that the field is filled': PLAIN_SNAPSHOT,
    'never shows card numbers, card codes or one-time codes, while ordinary fields stay readable':
      PLAIN_SNAPSHOT,
    'cuts at line boundaries within the budget and pages deterministically with offset': PLAIN_SNAPSHOT,
    'compact clips long text; full adds the rest': PLAIN_SNAPSHOT,
    'shows the value of a text field': PLAIN_SNAPSHOT,
    'keeps the ref of a clickable container and walks its content like any other': PLAIN_SNAPSHOT,
    'never cuts a heading line: each link in it keeps its ref and whole target, and no control character leaks':
      PLAIN_SNAPSHOT,
    'cuts a line longer than the budget between controls, so every ref stays whole and clicks its own link':
      PLAIN_SNAPSHOT,
    'leaves hidden content out of accessible names': PLAIN_SNAPSHOT,
    'shows a link within the page as its fragment, and folds no run of text to save a single line':
      PLAIN_SNAPSHOT,
    'keeps a visible control under aria-hidden, marked, and leaves hidden ones and the text around it out':
      PLAIN_SNAPSHOT,
    'ref shows one clickable container and its whole content, and the ref still clicks it': PLAIN_SNAPSHOT,
    'find answers the matching lines under their form, with refs that act': PLAIN_SNAPSHOT,
    'shows a link target only where it says something, shortened, and never makes two links look the same':
      PLAIN_SNAPSHOT,
    'clicks and types inside a cross-origin iframe': PLAIN_SNAPSHOT,
  },
  2: {
    'type replaces the field content with trusted input': PLAIN_SNAPSHOT,
    'type into a select chooses the option with that label': PLAIN_SNAPSHOT,
    'press sends trusted keys, with modifiers': SINGLE_KEYS,
    'scroll moves the page by a screen or by amount':
      'Camofox does not report the scroll position (scroll_x and scroll_y are null, as the result schema allows)',
    'a window.open popup is followed and reported as a notice':
      'Camofox keeps one tab per session and reports no tab a page opens',
  },
  3: {
    'Control+A selects all, so the next key replaces the text; the old modifiers array still works':
      SINGLE_KEYS,
    'click can use the right or middle button, click twice, and hold modifiers': LEFT_CLICKS,
    'a confirm-gated delete completes only after accept, and everything else waits for the answer':
      OWN_DIALOGS,
    'a beforeunload question holds the navigation until it is answered': OWN_DIALOGS,
  },
};

/**
 * Every result Camofox gives must be what the tool catalog says the tool returns: tabgate builds these
 * results itself from Camofox's replies, so nothing else checks them.
 */
function resultsChecked(open: () => Promise<ConformanceSession>): () => Promise<ConformanceSession> {
  return async () => {
    const session = await open();
    return {
      close: () => session.close(),
      async call(tool, args) {
        const result = await session.call(tool, args);
        const checked = getTool(tool)?.result.safeParse(result);
        assert.ok(checked?.success, `${tool} answered outside its result schema: ${JSON.stringify(result)}`);
        return result;
      },
    };
  };
}

let chromium: LocalChromium | undefined;
let camofox: FakeCamofox | undefined;
after(async () => {
  await camofox?.close();
  chromium?.kill();
});

export async function camofoxHarness(part: ConformancePart): Promise<ConformanceHarness> {
  const site = await startTestSite({ hosts: ['site-a.tabgate.test', 'site-b.tabgate.test'] });
  chromium = await launchChromium({ extraArgs: ['--host-resolver-rules=MAP *.tabgate.test 127.0.0.1'] });
  camofox = await startFakeCamofox({ cdpUrl: chromium.wsEndpoint });
  const settings = { ...DEFAULT_BROWSER_SETTINGS, snapshotMaxChars: 4000, allowPrivateUrls: true };
  const backend = new CamofoxBackend(
    // These names are public on the browser's side; our DNS does not know them.
    { url: camofox.url, resolve: async () => ['93.184.215.14'] },
    settings,
    silentLogger,
  );
  return {
    ...onTestSite(site, settings.snapshotMaxChars),
    limits: {
      refusedTools: {
        tools: TOOLS.map((tool) => tool.name).filter((name) => !CAMOFOX_TOOLS.has(name)),
        code: 'unsupported_on_backend',
        reason: "Camofox's REST API has no call for it, and tabgate never emulates one",
      },
      skippedCases: SKIPPED_CASES[part],
    },
    newSession: resultsChecked(
      backendSessions(new CheckedResults(backend, silentLogger), 'camofox-conformance'),
    ),
    async close() {
      await backend.close();
      await site.close();
    },
  };
}
