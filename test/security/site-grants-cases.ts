/**
 * Every way an agent's action can move a frame, against a gateway whose browser serves `granted.test`
 * to one session and nothing else: the other site's server must receive 0 requests, and the tab stays
 * on the granted page. Shared by the local-browser and remote-browser suites.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { HttpResult, TestGateway } from '../gateway/fixtures/gateway.js';
import {
  CATEGORY_HOST,
  DENIED_HOST,
  ESCAPE_PATHS,
  ESCAPING_CONTROLS,
  FRAMES_TRIED,
  startSiteServers,
  type SiteServers,
} from './fixtures/site-servers.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';
import { waitFor } from '../helpers/wait-for.js';

interface SitesView {
  browser: string;
  mode: string;
  granted: string[];
  requested: string[];
  deny: string[];
}
interface AuditRow {
  action: string;
  arguments: { url?: string };
  outcome: string;
  context: { site_policy?: { browser: string; mode: string }; rule?: string } | null;
}
const sitesOf = (result: HttpResult): SitesView => (result.body as { sites: SitesView }).sites;
const messageOf = (result: HttpResult): string =>
  (result.body as { error: { message: string } }).error.message;

/**
 * Only for a frame a page moves or adds after it loaded: a refused sub-frame navigation is aborted, which
 * fires no event the page or the agent can see (no load, no notice), so this is how long its request
 * is given to arrive.
 */
const FRAME_SETTLE_MS = 400;

/** The `safety:` block the suites run under: sites asked for must be granted; one site denied. */
export const SAFETY_CONFIG = { mode: { local: 'ask', remote: 'ask' }, sites: { deny: [DENIED_HOST] } };

export function siteGrantCases(
  name: string,
  /** The browser the session's mode is picked for: `local` or `remote`. */
  browser: string,
  start: (servers: SiteServers) => Promise<{ gw: TestGateway; dispose(): Promise<void> }>,
): void {
  describe(name, () => {
    let servers: SiteServers;
    let gw: TestGateway;
    let running: { gw: TestGateway; dispose(): Promise<void> } | undefined;
    let sid: string;
    /** Requests the other server may have seen on purpose (the history case grants it for a while). */
    let expectedOther = 0;

    const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
      gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
    const { ok, refOf } = toolSession(call);
    const asOwner = (method: string, path: string, body?: unknown) =>
      gw.request(method, path, { body, headers: { authorization: `Bearer ${gw.operatorKey}` } });
    const grant = (site: string) => asOwner('POST', `/v1/sessions/${sid}/site-grants`, { site });
    const revoke = (site: string) => asOwner('POST', `/v1/sessions/${sid}/site-grants/revoke`, { site });
    const refused = async (result: HttpResult, code: string) => {
      assert.equal(result.status, 403, JSON.stringify(result.body));
      assert.equal(errorCode(result), code, JSON.stringify(result.body));
    };
    /** The rule each audit row of a navigation to `url` names. */
    const rulesOfRows = async (url: string) => {
      const audit = await gw.request('GET', `/v1/audit?session=${sid}`);
      return (audit.body as { entries: AuditRow[] }).entries
        .filter((entry) => entry.arguments.url === url)
        .map((entry) => entry.context?.rule);
    };
    const onLinks = async () => {
      await ok('browser_navigate', { url: servers.grantedUrl('/links') });
    };
    /**
     * Waits until the session was told that the navigation to `path` of the other site was refused as
     * not granted: the attempt is over, and its request never left the browser. `seen`: notices that
     * earlier calls of the case already drained.
     */
    const toldNotGranted = async (path: string, seen: string[] = []) => {
      const url = servers.otherUrl(path);
      const told = () => seen.some((notice) => notice.includes(url) && /not granted/.test(notice));
      await waitFor(
        async () => {
          if (told()) return true;
          seen.push(...((await ok('browser_snapshot')).notices ?? []));
          return told();
        },
        { what: `a "not granted" notice for ${url}` },
      );
    };
    /** The tab is still on `title`, and no tab went to the other site; the notices met on the way. */
    const stillOn = async (title: string): Promise<string[]> => {
      const listed = await ok('browser_tabs');
      const tabs = listed.tabs ?? [];
      assert.deepEqual(
        tabs.filter((tab) => tab.url.includes('other.test')),
        [],
        JSON.stringify(tabs),
      );
      const snapshot = await ok('browser_snapshot');
      assert.equal(snapshot.title, title);
      return [...(listed.notices ?? []), ...(snapshot.notices ?? [])];
    };

    before(async () => {
      servers = await startSiteServers();
      const started = await start(servers);
      running = started;
      gw = started.gw;
      const created = await gw.request('POST', '/v1/sessions', {
        body: { title: 'sites', sites: [servers.grantedOrigin] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      sid = (created.body as { session_id: string }).session_id;
      assert.deepEqual(sitesOf(created).requested, [servers.grantedOrigin]);
      assert.deepEqual(sitesOf(created).granted, []);
    });
    // Each case ends once its attempts are over (refused in an answer or a notice, or reported by the page).
    afterEach(() => {
      assert.equal(servers.otherRequests.length, expectedOther, servers.otherRequests.join('\n'));
    });
    after(async () => {
      await running?.dispose();
      await servers?.close();
    });

    it('refuses a site the session only asked for until the owner grants it, which the agent cannot', async () => {
      await refused(await call('browser_navigate', { url: servers.grantedUrl('/') }), 'site_not_granted');
      const byAgent = await gw.request('POST', `/v1/sessions/${sid}/site-grants`, {
        body: { site: servers.grantedOrigin },
      });
      assert.equal(byAgent.status, 403);
      assert.equal(errorCode(byAgent), 'operator_required');
      assert.equal((await grant(servers.grantedOrigin)).status, 200);
      assert.equal((await ok('browser_navigate', { url: servers.grantedUrl('/') })).title, 'Granted home');
    });

    it('shows the policy in force in GET /v1/sessions/{id}', async () => {
      const shown = await gw.request('GET', `/v1/sessions/${sid}`);
      assert.equal(shown.status, 200);
      assert.equal(sitesOf(shown).browser, browser);
      assert.equal(sitesOf(shown).mode, 'ask');
      assert.deepEqual(sitesOf(shown).granted, [servers.grantedOrigin]);
      assert.deepEqual(sitesOf(shown).requested, []);
      assert.deepEqual(sitesOf(shown).deny, [DENIED_HOST]);
    });

    it('refuses a typed URL with site_not_granted naming the origin and how the owner grants it', async () => {
      await onLinks();
      const result = await call('browser_navigate', { url: servers.otherUrl('/typed') });
      await refused(result, 'site_not_granted');
      assert.match(messageOf(result), new RegExp(servers.otherOrigin.replace(/\./g, '\\.')));
      assert.match(messageOf(result), /tabgate grants add/);
      await stillOn('Links');
      // Logged although this backend's other calls are not, with the policy that refused it.
      const audit = await gw.request('GET', `/v1/audit?session=${sid}`);
      const rows = (audit.body as { entries: AuditRow[] }).entries;
      const row = rows.find((entry) => entry.arguments.url === servers.otherUrl('/typed'));
      assert.equal(row?.outcome, 'site_not_granted', JSON.stringify(rows));
      assert.equal(row.context?.site_policy?.browser, browser);
      assert.equal(row.context?.site_policy?.mode, 'ask');
      assert.equal(row.context?.rule, 'not_granted');
      const calls = rows.filter((entry) => entry.action.startsWith('browser_'));
      assert.ok(
        calls.every((entry) => entry.outcome !== 'ok'),
        JSON.stringify(rows),
      );
    });

    it('refuses a URL whose user name is the granted site', async () => {
      const tricky = servers
        .otherUrl('/userinfo')
        .replace('http://', `http://${new URL(servers.grantedOrigin).host}@`);
      const result = await call('browser_navigate', { url: tricky });
      assert.notEqual(result.status, 200, JSON.stringify(result.body));
      await stillOn('Links');
    });

    it("refuses an HTTP redirect of browser_navigate before the other site's request", async () => {
      const url = servers.grantedUrl(`/redirect?to=${encodeURIComponent(servers.otherUrl('/redirected'))}`);
      await refused(await call('browser_navigate', { url }), 'site_not_granted');
      await stillOn('Links');
      // Refused by the network guard, at the redirect's hop: the row names the rule all the same.
      const audit = await gw.request('GET', `/v1/audit?session=${sid}`);
      const rows = (audit.body as { entries: AuditRow[] }).entries.filter((entry) =>
        String(entry.arguments.url).includes('/redirect?'),
      );
      assert.deepEqual(
        rows.map((entry) => `${entry.outcome} ${entry.context?.rule}`),
        ['site_not_granted not_granted'],
      );
    });

    for (const label of ESCAPING_CONTROLS) {
      it(`keeps the tab on the granted page when the agent clicks ${label}`, async () => {
        await onLinks();
        const clicked = await ok('browser_click', { ref: await refOf(label) });
        // The refusal reaches the agent as a notice on this result or, when the refused request left after
        // the click's answer (a form POST can), on a later one.
        await toldNotGranted(ESCAPE_PATHS[label], [...(clicked.notices ?? [])]);
        await stillOn('Links');
      });
    }

    it('refuses a meta refresh of a granted page to another site', async () => {
      const opened = await ok('browser_navigate', { url: servers.grantedUrl('/meta-refresh') });
      await toldNotGranted('/meta', [...(opened.notices ?? [])]);
      await stillOn('Meta refresh');
    });

    it("refuses a granted page's script redirect to another site", async () => {
      const opened = await ok('browser_navigate', { url: servers.grantedUrl('/script-redirect') });
      await toldNotGranted('/location', [...(opened.notices ?? [])]);
      await stillOn('Script redirect');
    });

    it('refuses an iframe of another site loaded with the page', async () => {
      await ok('browser_navigate', { url: servers.grantedUrl('/embeds') });
      await waitFor(
        async () => (await ok('browser_snapshot', { full: true })).snapshot?.includes(FRAMES_TRIED),
        { what: 'the page to say its frame was tried' },
      );
      await stillOn('Embeds');
    });

    it('refuses an iframe of another site the page adds after a click', async () => {
      await onLinks();
      await ok('browser_click', { ref: await refOf('button "Add other frame"') });
      await new Promise((resolve) => setTimeout(resolve, FRAME_SETTLE_MS));
      await stillOn('Links');
    });

    it('refuses a granted iframe that moves itself to another site', async () => {
      await ok('browser_navigate', { url: servers.grantedUrl('/nested') });
      await new Promise((resolve) => setTimeout(resolve, FRAME_SETTLE_MS));
      await stillOn('Nested');
    });

    it('refuses going back to a site whose grant the owner revoked', async () => {
      assert.equal((await grant(servers.otherOrigin)).status, 200);
      await ok('browser_navigate', { url: servers.otherUrl('/while-granted') });
      expectedOther = servers.otherRequests.length;
      await ok('browser_navigate', { url: servers.grantedUrl('/second') });
      assert.equal((await revoke(servers.otherOrigin)).status, 200);
      await refused(await call('browser_back'), 'site_not_granted');
      await stillOn('Granted second');
    });

    it('blocks a high-risk category site and a denied site with site_blocked', async () => {
      await onLinks();
      await refused(
        await call('browser_navigate', { url: servers.otherUrl('/bank', CATEGORY_HOST) }),
        'site_blocked',
      );
      await refused(
        await call('browser_navigate', { url: servers.otherUrl('/denied', DENIED_HOST) }),
        'site_blocked',
      );
      // Granting the denied site changes nothing: deny always wins.
      assert.equal((await grant(DENIED_HOST)).status, 200);
      await refused(
        await call('browser_navigate', { url: servers.otherUrl('/denied', DENIED_HOST) }),
        'site_blocked',
      );
      await stillOn('Links');
      // One code, two rules: each row names its own.
      assert.deepEqual(await rulesOfRows(servers.otherUrl('/bank', CATEGORY_HOST)), ['high_risk']);
      assert.deepEqual(await rulesOfRows(servers.otherUrl('/denied', DENIED_HOST)), ['denied', 'denied']);
    });
  });
}
