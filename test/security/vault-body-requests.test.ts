/**
 * On the local Chromium, once `browser_type {secret}` has filled a password, the browser's network guard
 * fails every request that would carry it off (docs/secrets.md): in a URL (`secret_in_url`) and, new
 * here, in a POST body to any origin but the secret's own (`secret_in_body`), whether the page, its
 * cross-site iframe or its worker sends it. The page's POST of the value to its own origin, which is
 * what a sign-in form does, arrives. The page reports when every attempt has settled; the recording
 * server shows what arrived, and the gateway's log names the secret and the origin, never the value.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { assertOwnPostArrived, leakedRequests, reportedAttempts } from './fixtures/leak-checks.js';
import { leaks } from './fixtures/leak-search.js';
import { startLeakSite, type LeakSite } from './fixtures/leak-site.js';
import { toolSession } from './fixtures/tool-session.js';

const PASSWORD = `Body pw/${randomBytes(6).toString('hex')}+?&`;

describe('a request body never carries a filled secret to another origin', () => {
  let site: LeakSite;
  let gw: TestGateway;
  let sid: string;
  const { ok, refOf } = toolSession((tool, args) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args }),
  );

  before(async () => {
    site = await startLeakSite();
    gw = await startTestGateway({ config: { browser: { command_timeout: 20 } } });
    new Vault(gw.home).add(
      { name: 'body-pass', origin: site.origin, field: 'password', value: PASSWORD },
      new Date(),
    );
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it("fails the page's, its iframe's and its worker's POSTs elsewhere, and lets the one to its own origin go", async () => {
    await ok('browser_navigate', { url: `${site.origin}/leak?navigations=no` });
    const typed = await ok('browser_type', { ref: await refOf('textbox "Password"'), secret: 'body-pass' });
    await waitFor(() => site.done(), { what: 'the page to report every attempt settled' });
    assert.deepEqual(leakedRequests(site, PASSWORD), [], site.requests.join('\n'));
    assertOwnPostArrived(site, PASSWORD);
    const attempts = reportedAttempts(site);
    assert.deepEqual(attempts.at(-2), ['failed', 'failed', 'failed'], JSON.stringify(attempts));
    assert.deepEqual(attempts.at(-1), ['failed', 'failed'], JSON.stringify(attempts));
    await waitFor(() => gw.logLines.some((line) => line.includes('its body carried a vault secret')), {
      what: 'a body refusal in the log',
    });
    const logged = gw.logLines.map((line, i) => ({ where: `log line ${i}`, bytes: Buffer.from(line) }));
    assert.deepEqual(leaks([PASSWORD], logged), []);
    // One notice per tab and origin: the origin's first refusal (a URL or a body) names the secret.
    const notices = [...(typed.notices ?? []), ...((await ok('browser_snapshot')).notices ?? [])];
    assert.ok(
      notices.some((notice) => notice.includes(`${site.other} were refused`) && notice.includes('body-pass')),
      JSON.stringify(notices),
    );
    assert.deepEqual(
      leaks([PASSWORD], [{ where: 'notices', bytes: Buffer.from(JSON.stringify(notices)) }]),
      [],
    );
  });
});
