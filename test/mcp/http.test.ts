import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { rawRequest } from '../security/fixtures.js';
import { callTool, refOf } from './mcp-client.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CONTROLLER_CAPABILITIES, TAKEOVER_TOOL } from '../../src/protocol/index.js';
import { TestController } from '../gateway/fixtures/controller.js';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { waitFor } from '../helpers/wait-for.js';

async function connect(
  gw: TestGateway,
  key = gw.key,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(gw.url + '/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'tabgate-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function sessionCount(gw: TestGateway): Promise<number> {
  const listed = await gw.request('GET', '/v1/sessions');
  return (listed.body as { sessions: unknown[] }).sessions.length;
}

describe('MCP over streamable HTTP at /mcp', () => {
  let gw: TestGateway;
  let site: TestSite;

  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({ config: {} });
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it('lists the catalog tools with read-only annotations', async () => {
    const { client } = await connect(gw);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'browser_navigate'));
    assert.equal(tools.find((tool) => tool.name === 'browser_snapshot')?.annotations?.readOnlyHint, true);
    // MCP's default for readOnlyHint is false, so a tool that changes the page leaves it out.
    assert.notEqual(tools.find((tool) => tool.name === 'browser_click')?.annotations?.readOnlyHint, true);
    await client.close();
  });

  it('browses a real page: navigate, type, click and read the result', async () => {
    const { client } = await connect(gw);
    const nav = await callTool(client, 'browser_navigate', { url: site.url('/form') });
    assert.equal(nav.isError, false, nav.text);
    assert.match(nav.text, /Test form/);
    const typed = await callTool(client, 'browser_type', { ref: refOf(nav.text, 'Your name'), text: 'Ada' });
    assert.equal(typed.isError, false, typed.text);
    const clicked = await callTool(client, 'browser_click', { ref: refOf(nav.text, 'Check trust') });
    assert.equal(clicked.isError, false, clicked.text);
    const snap = await callTool(client, 'browser_snapshot', { full: true });
    assert.match(snap.text, /clicked trusted=true/);
    assert.match(snap.text, /Ada/);
    await client.close();
  });

  it('tells the agent about a dialog the page opened and how to answer it', async () => {
    const { client } = await connect(gw);
    const nav = await callTool(client, 'browser_navigate', { url: site.url('/dialogs') });
    const clicked = await callTool(client, 'browser_click', { ref: refOf(nav.text, 'Alert') });
    assert.match(clicked.text, /Dialog open: alert "Hello from alert"\. Answer it with browser_dialog/);
    const answered = await callTool(client, 'browser_dialog', { action: 'accept' });
    assert.equal(answered.isError, false, answered.text);
    await client.close();
  });

  it('binds each MCP session to its own tabgate session and closes it with the MCP session', async () => {
    const before = await sessionCount(gw);
    const { client, transport } = await connect(gw);
    await callTool(client, 'browser_tabs');
    assert.equal(await sessionCount(gw), before + 1);
    await transport.terminateSession();
    await client.close();
    assert.equal(await sessionCount(gw), before);
  });

  it('answers bad arguments with an isError result that names the field', async () => {
    const { client } = await connect(gw);
    const bad = await callTool(client, 'browser_scroll', { direction: 'sideways' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /invalid_arguments/);
    assert.match(bad.text, /direction/);
    await client.close();
  });

  it('keeps an unknown tool a protocol error', async () => {
    const { client } = await connect(gw);
    await assert.rejects(client.callTool({ name: 'browser_teleport', arguments: {} }), /Unknown tool/);
    await client.close();
  });

  it('refuses a client without the API key', async () => {
    await assert.rejects(connect(gw, 'wrong-key'), /401|invalid_api_key|Missing or invalid/);
  });

  it('refuses a request whose Host is not the gateway (DNS rebinding)', async () => {
    const port = new URL(gw.url).port;
    const refused = await rawRequest(gw.url, {
      method: 'POST',
      path: '/mcp',
      headers: {
        host: `evil.example:${port}`,
        authorization: `Bearer ${gw.key}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'forbidden_host');
  });
});

describe("MCP's tool list follows the user's tab", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend(), config: ENABLED_CONFIG });
  });
  after(() => gw?.close());

  it('tells the client the moment a tab is shared, without waiting for its next call', async () => {
    const { client } = await connect(gw);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(before.includes('browser_drag'), 'the local browser runs every tool');
    const listed = await gw.request('GET', '/v1/sessions');
    const [session] = (listed.body as { sessions: { session_id: string }[] }).sessions;
    assert.ok(session);
    const controller = await TestController.connect(gw, { sessionId: session.session_id });
    await waitFor(() => changes === 1, { what: 'notifications/tools/list_changed' });
    const after = (await client.listTools()).tools.map((tool) => tool.name).sort();
    // What the tab runs, and the takeover: the gateway's own pause, on whichever browser serves.
    const tools = CONTROLLER_CAPABILITIES.filter((name) => name.startsWith('browser_'));
    assert.deepEqual(after, [...tools, TAKEOVER_TOOL].sort());
    await controller.close();
    await client.close();
  });
});
