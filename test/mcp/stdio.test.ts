import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  makeHome,
  startTestGateway,
  writeConfigFile,
  type TestGateway,
} from '../gateway/fixtures/gateway.js';
import { TOOLS } from '../../src/protocol/index.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { callTool, refOf } from './mcp-client.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestController } from '../gateway/fixtures/controller.js';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { waitFor } from '../helpers/wait-for.js';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'tabgate.js');

function stdioClient(home: string, args: string[] = []): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), TABGATE_HOME: home },
    stderr: 'pipe',
  });
  return { client: new Client({ name: 'tabgate-test', version: '0.0.0' }), transport };
}

describe('tabgate mcp over stdio', () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite();
  });
  after(async () => {
    await site?.close();
  });

  it('drives a real page standalone: navigate, snapshot, type, press, click, screenshot', async () => {
    const home = makeHome();
    const { client, transport } = stdioClient(home);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, TOOLS.length);
      const nav = await callTool(client, 'browser_navigate', { url: site.url('/form') });
      assert.equal(nav.isError, false, nav.text);
      const snap = await callTool(client, 'browser_snapshot');
      assert.match(snap.text, /textbox "Your name" @e\d+/);
      const typed = await callTool(client, 'browser_type', {
        ref: refOf(snap.text, 'Your name'),
        text: 'Grace',
      });
      assert.equal(typed.isError, false, typed.text);
      const pressed = await callTool(client, 'browser_press', { key: 'a', modifiers: ['Control'] });
      assert.equal(pressed.isError, false, pressed.text);
      await callTool(client, 'browser_click', { ref: refOf(snap.text, 'Check trust') });
      const after = await callTool(client, 'browser_snapshot', { full: true });
      assert.match(after.text, /clicked trusted=true/);
      assert.match(after.text, /a\+ctrl:true/);
      const shot = await callTool(client, 'browser_screenshot');
      assert.equal(shot.images.length, 1);
      assert.equal(shot.images[0]?.mimeType, 'image/png');
      assert.equal(
        Buffer.from(shot.images[0]?.data ?? '', 'base64')
          .subarray(1, 4)
          .toString(),
        'PNG',
      );
      const bad = await callTool(client, 'browser_navigate', { url: 42 });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /invalid_arguments: .*url/);
      // The listed schemas leave out `additionalProperties: false` (it costs every tool list); the
      // gateway still refuses an argument the tool does not take, naming it.
      const listed = JSON.stringify((await client.listTools()).tools);
      assert.ok(!listed.includes('additionalProperties'), 'compact schemas');
      const extra = await callTool(client, 'browser_tabs', { target_id: 'T1' });
      assert.equal(extra.isError, true);
      assert.match(extra.text, /invalid_arguments: .*target_id/);
    } finally {
      await client.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('closes its session when the client goes away', async () => {
    const home = makeHome();
    writeConfigFile(home, {});
    const { client, transport } = stdioClient(home);
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    await callTool(client, 'browser_tabs');
    const pid = transport.pid;
    assert.ok(pid);
    const exited = new Promise<number | null>((resolve) => {
      const timer = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(timer);
          resolve(null);
        }
      }, 50);
    });
    await client.close();
    await exited;
    // Closing ended in itself once: each close of the transport closed the server again, until the stack
    // overflowed, and the client's log got the trace.
    assert.doesNotMatch(stderr, /RangeError|Maximum call stack/);
    // The standalone gateway wrote its sessions to the home's store: none may be left open.
    const gw = await startTestGateway({ home, config: {} });
    try {
      const listed = await gw.request('GET', '/v1/sessions');
      assert.deepEqual((listed.body as { sessions: unknown[] }).sessions, []);
    } finally {
      await gw.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('attaches to a running gateway and joins an existing session', async () => {
    const gw: TestGateway = await startTestGateway({ config: {} });
    const sessionId = await gw.createSession('shared');
    const { client, transport } = stdioClient(gw.home, ['--gateway', gw.url, '--session', sessionId]);
    await client.connect(transport);
    try {
      const nav = await callTool(client, 'browser_navigate', { url: site.url('/page2') });
      assert.equal(nav.isError, false, nav.text);
      // The same session seen through the HTTP API shows the page the MCP client opened.
      const tabs = await gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, { body: {} });
      assert.match(JSON.stringify(tabs.body), /page2/);
    } finally {
      await client.close();
      // A joined session is left open for its owner.
      assert.equal((await gw.request('GET', `/v1/sessions/${sessionId}`)).status, 200);
      await gw.close();
    }
  });

  it('runs a call whatever its JSON-RPC id, with the id as its tool_call_id only where it fits', async () => {
    const backend = new RecordingBackend();
    const gw = await startTestGateway({ backend });
    const sessionId = await gw.createSession('ids');
    // Raw JSON-RPC lines: a client library picks its own ids, and any string is a valid one.
    const child = spawn(process.execPath, [BIN, 'mcp', '--gateway', gw.url, '--session', sessionId], {
      env: { ...process.env, TABGATE_HOME: gw.home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answers = new Map<unknown, (answer: { result?: { isError?: boolean } }) => void>();
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
        const answer = JSON.parse(pending.slice(0, end)) as { id?: unknown; result?: { isError?: boolean } };
        pending = pending.slice(end + 1);
        answers.get(answer.id)?.(answer);
      }
    });
    const send = (message: object) =>
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
    const ask = (id: string | number, method: string, params: object) =>
      new Promise<{ result?: { isError?: boolean } }>((resolve) => {
        answers.set(id, resolve);
        send({ id, method, params });
      });
    try {
      await ask(0, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'ids', version: '0' },
      });
      send({ method: 'notifications/initialized' });
      const ids = [7, 'call-8', 'x'.repeat(300), 'line\nbreak', ' padded', 'é'];
      for (const id of ids) {
        const answer = await ask(id, 'tools/call', { name: 'browser_tabs', arguments: {} });
        assert.equal(
          answer.result?.isError,
          undefined,
          `${JSON.stringify(id).slice(0, 20)}: ${JSON.stringify(answer)}`,
        );
      }
      assert.deepEqual(
        backend.calls.map((call) => call.toolCallId),
        ['7', 'call-8', null, null, null, null],
      );
    } finally {
      child.kill();
      await gw.close();
    }
  });

  it('tells its client when a tab of the user is shared with the session it joined', async () => {
    const gw = await startTestGateway({ backend: new RecordingBackend(), config: ENABLED_CONFIG });
    const sessionId = await gw.createSession('shared');
    const { client, transport } = stdioClient(gw.home, ['--gateway', gw.url, '--session', sessionId]);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    await client.connect(transport);
    let controller: TestController | undefined;
    try {
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'browser_drag'));
      controller = await TestController.connect(gw, { sessionId });
      // No call is made: the client hears of it from tabgate mcp's own look at the gateway.
      await waitFor(() => changes > 0, { what: 'notifications/tools/list_changed', within: 15_000 });
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!names.includes('browser_drag'), names.join(', '));
      assert.ok(names.includes('browser_click'));
      // The poll behind it is logged at debug: an info log of people's and agents' acts, not of polls.
      const polls = gw.logLines.filter((line) => line.includes('path=/v1/tools '));
      assert.ok(polls.length > 0);
      assert.ok(
        polls.every((line) => / debug +request /.test(line)),
        polls.join('\n'),
      );
    } finally {
      await controller?.close();
      await client.close();
      await gw.close();
    }
  });
});
