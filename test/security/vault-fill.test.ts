/**
 * Vault secrets on the local Chromium, through a real gateway: a secret fills only a field of its
 * kind in a frame of its own origin, arrives at the site, and its bytes (raw, base64, hex,
 * percent-encoded) are in no HTTP or MCP response, audit file, journal or log line, even when the site
 * echoes it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Vault } from '../../src/gateway/secrets/index.js';
import { callTool as callMcpTool, refOf as mcpRefOf } from '../mcp/mcp-client.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { encodingsOf, filesUnder, leaks } from './fixtures/leak-search.js';
import { startLoginSite, type LoginSite } from './fixtures/login-site.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';

const PASSWORD = `Tg pw/${randomBytes(6).toString('hex')}+?&é`;
const USERNAME = `alice.${randomBytes(4).toString('hex')}@example.com`;

describe('vault secrets on the local browser', () => {
  let site: LoginSite;
  let gw: TestGateway;
  let sid: string;
  const responses: string[] = [];

  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> => {
    const result = await gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
    responses.push(JSON.stringify(result.body));
    return result;
  };
  const { ok, refOf } = toolSession(call);
  const refused = async (args: Record<string, unknown>, code: string) => {
    const result = await call('browser_type', args);
    assert.equal(errorCode(result), code, JSON.stringify(result.body));
    return result;
  };

  before(async () => {
    site = await startLoginSite();
    gw = await startTestGateway({ config: { browser: { command_timeout: 20 } } });
    const vault = new Vault(gw.home);
    vault.add({ name: 'site-pass', origin: site.origin, field: 'password', value: PASSWORD }, new Date());
    vault.add({ name: 'site-user', origin: site.origin, field: 'username', value: USERNAME }, new Date());
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it('fills username and password on their origin, and the site receives them', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    const ref = await refOf('textbox "Username"');
    const typed = await ok('browser_type', { ref, secret: 'site-user' });
    assert.deepEqual(typed, { typed_into: ref, submitted: false, secret: 'site-user' });
    const { snapshot } = await ok('browser_snapshot');
    assert.match(snapshot ?? '', /textbox "Username" @e\d+ \[secret, filled(, focused)?\]\n/);
    await ok('browser_type', { ref: await refOf('textbox "Password"'), secret: 'site-pass', submit: true });
    const last = site.posted.at(-1);
    assert.equal(last?.get('user'), USERNAME);
    assert.equal(last?.get('pass'), PASSWORD);
    // The site echoes both values; the agent reads markers instead.
    const welcome = (await ok('browser_snapshot')).snapshot ?? '';
    assert.match(welcome, /Signed in as «secret:site-user»/);
    assert.match(welcome, /Your password was «secret:site-pass»/);
  });

  it('refuses the look-alike origin and types nothing', async () => {
    await ok('browser_navigate', { url: `${site.lookalike}/login` });
    await refused({ ref: await refOf('textbox "Password"'), secret: 'site-pass' }, 'secret_origin_mismatch');
    assert.match((await ok('browser_snapshot')).snapshot ?? '', /textbox "Password" @e\d+ \[password\]\n/);
  });

  it("refuses a cross-origin iframe inside the secret's own origin", async () => {
    await ok('browser_navigate', { url: `${site.origin}/framed` });
    const result = await refused(
      { ref: await refOf('textbox "Password"'), secret: 'site-pass' },
      'secret_origin_mismatch',
    );
    assert.match(
      JSON.stringify(result.body),
      new RegExp(`origin is ${site.lookalike.replace(/\./g, '\\.')}`),
    );
    assert.match((await ok('browser_snapshot')).snapshot ?? '', /textbox "Password" @e\d+ \[password\]\n/);
  });

  it('refuses a field of the wrong kind and types nothing', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    await refused({ ref: await refOf('textbox "Username"'), secret: 'site-pass' }, 'secret_origin_mismatch');
    await refused({ ref: await refOf('searchbox "Search"'), secret: 'site-pass' }, 'secret_origin_mismatch');
    await refused({ ref: await refOf('textbox "Password"'), secret: 'site-user' }, 'secret_origin_mismatch');
    await refused(
      { ref: await refOf('textbox "Card number"'), secret: 'site-user' },
      'secret_origin_mismatch',
    );
    await refused({ ref: await refOf('textbox "Note"'), secret: 'site-user' }, 'secret_origin_mismatch');
    const { snapshot } = await ok('browser_snapshot');
    // No field shows a value (`= "…"`) or a fill: the boundary's own `nonce="…"` is not a field.
    assert.doesNotMatch(snapshot ?? '', /filled| = "/, snapshot);
  });

  it('answers unknown_secret for a name the vault does not have, and types nothing', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    const result = await refused(
      { ref: await refOf('textbox "Password"'), secret: 'nope' },
      'unknown_secret',
    );
    assert.equal(result.status, 404);
    assert.doesNotMatch((await ok('browser_snapshot')).snapshot ?? '', /filled/);
  });

  it('refuses a navigation whose URL carries a secret in any encoding, before any request', async () => {
    const before = site.requests.length;
    for (const [form, text] of Object.entries(encodingsOf(PASSWORD))) {
      const result = await call('browser_navigate', { url: `${site.origin}/other?q=${text}&f=${form}` });
      assert.equal(errorCode(result), 'secret_in_url', `${form}: ${JSON.stringify(result.body)}`);
      assert.equal(result.status, 403);
    }
    assert.deepEqual(site.requests.slice(before), []);
  });

  it('fills and refuses the same way over MCP, which shows markers instead of values', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(gw.url + '/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${gw.key}` } },
    });
    const client = new Client({ name: 'vault-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const mcp = async (tool: string, args: Record<string, unknown>) => {
        const outcome = await callMcpTool(client, tool, args);
        responses.push(outcome.text);
        return outcome;
      };
      const page = await mcp('browser_navigate', { url: `${site.origin}/login` });
      await mcp('browser_type', { ref: mcpRefOf(page.text, 'Username'), secret: 'site-user' });
      const typed = await mcp('browser_type', {
        ref: mcpRefOf(page.text, 'Password'),
        secret: 'site-pass',
        submit: true,
      });
      assert.equal(typed.isError, false, typed.text);
      assert.equal(site.posted.at(-1)?.get('pass'), PASSWORD);
      assert.match((await mcp('browser_snapshot', {})).text, /Your password was «secret:site-pass»/);
      const lookalike = await mcp('browser_navigate', { url: `${site.lookalike}/login` });
      const refusedOverMcp = await mcp('browser_type', {
        ref: mcpRefOf(lookalike.text, 'Password'),
        secret: 'site-pass',
      });
      assert.equal(refusedOverMcp.isError, true);
      assert.match(refusedOverMcp.text, /secret_origin_mismatch/);
      const inUrl = await mcp('browser_navigate', {
        url: `${site.origin}/other?q=${encodeURIComponent(PASSWORD)}`,
      });
      assert.match(inUrl.text, /secret_in_url/);
    } finally {
      await client.close();
    }
  });

  it('leaves no byte of either secret in responses, the audit files, the journal or the log', async () => {
    const audit = await gw.request('GET', '/v1/audit');
    responses.push(JSON.stringify(audit.body));
    const places = [
      ...responses.map((text, i) => ({ where: `response ${i}`, bytes: Buffer.from(text) })),
      { where: 'log', bytes: Buffer.from(gw.logLines.join('\n')) },
      ...filesUnder(gw.home).map(({ file, bytes }) => ({ where: file, bytes })),
    ];
    assert.ok(places.length > 20, 'searched too little');
    assert.deepEqual(leaks([PASSWORD, USERNAME], places), []);
  });
});
