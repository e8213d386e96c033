/**
 * A page cannot carry a filled vault value off in a URL (docs/secrets.md): on the local Chromium, once
 * `browser_type {secret}` has filled a field, every request whose URL carries the value (raw, base64,
 * percent-encoded twice), whatever made it (an image, a fetch, a form sent into an iframe), is failed in the browser with
 * `secret_in_url`: the recording server receives none of them, and the gateway's log names the secret
 * and the origin, never the value.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { leaks } from './fixtures/leak-search.js';
import { startLoginSite, type LoginSite } from './fixtures/login-site.js';
import { toolSession } from './fixtures/tool-session.js';

const USERNAME = `alice.${randomBytes(4).toString('hex')}@example.com`;

describe("a page's own requests never carry a filled secret", () => {
  let site: LoginSite;
  let gw: TestGateway;
  let sid: string;
  const { ok, refOf } = toolSession((tool, args) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args }),
  );
  const refusals = () => gw.logLines.filter((line) => line.includes('its URL carried a vault secret'));

  before(async () => {
    site = await startLoginSite();
    gw = await startTestGateway({ config: { browser: { command_timeout: 20 } } });
    new Vault(gw.home).add(
      { name: 'site-user', origin: site.origin, field: 'username', value: USERNAME },
      new Date(),
    );
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it('fails an image, two fetches and a form sent into an iframe that carry it to another site, in three encodings, and lets the rest through', async () => {
    await ok('browser_navigate', { url: `${site.origin}/exfil` });
    const typed = await ok('browser_type', { ref: await refOf('textbox "Username"'), secret: 'site-user' });
    await waitFor(() => site.requests.some((request) => request.includes(`/pixel?done=${USERNAME.length}`)), {
      what: 'the request sent after the three that carry the value',
    });
    await waitFor(() => refusals().length >= 4, { what: 'four refusals in the log' });
    // A user name in its own site's URLs (a profile page) is how sites work: that one request goes.
    const profile = `GET /profile/${encodeURIComponent(USERNAME)}`;
    await waitFor(() => site.requests.includes(profile), { what: 'the same-site profile request' });
    const received = site.requests
      .filter((request) => request !== profile)
      .map((request, i) => ({ where: `request ${i}`, bytes: Buffer.from(request) }));
    assert.deepEqual(leaks([USERNAME], received), [], site.requests.join('\n'));
    assert.ok(
      !site.requests.some((request) => /\/pixel\?u=|\/collect\?/.test(request)),
      site.requests.join('\n'),
    );
    const logged = gw.logLines.map((line, i) => ({ where: `log line ${i}`, bytes: Buffer.from(line) }));
    assert.deepEqual(leaks([USERNAME], logged), []);
    assert.match(refusals()[0] ?? '', /site-user/);
    const notices = [...(typed.notices ?? []), ...((await ok('browser_snapshot')).notices ?? [])];
    assert.ok(
      notices.some((notice) => notice.includes('vault secret site-user')),
      `a result says why: ${JSON.stringify(notices)}`,
    );
  });
});
