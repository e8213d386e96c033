/** `tabgate audit` reads the audit log from the home folder, filtered, as JSON, and follows new rows. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AuditEntry } from '../../src/gateway/audit/index.js';
import { catalogAnswer, TestController } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { cliEntry } from '../helpers/cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = (home: string, args: string[]) => ({
  command: process.execPath,
  args: [...cliEntry(), 'audit', ...args],
  options: { cwd: root, env: { ...process.env, TABGATE_HOME: home } },
});

describe('tabgate audit', () => {
  let gw: TestGateway;
  const controllers: TestController[] = [];
  const sessions: string[] = [];
  const navigate = (session: string, url: string) =>
    gw.request('POST', `/v1/sessions/${session}/tools/browser_navigate`, { body: { url } });

  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
    for (let i = 0; i < 2; i++) sessions.push(await gw.createSession());
    for (const [i, sessionId] of sessions.entries()) {
      const controller = await TestController.connect(gw, { sessionId, controllerId: `cli-${i}` });
      controllers.push(controller);
      controller.ws.on('message', (data) => {
        const frame = JSON.parse((data as Buffer).toString('utf8')) as {
          method: string;
          params: { command_id: string; arguments: { url?: string } };
        };
        if (frame.method === 'browser.controller.command')
          controller.result(
            frame.params.command_id,
            true,
            catalogAnswer('browser_navigate', frame.params.arguments.url),
          );
      });
      await navigate(sessionId, `https://site${i}.example/`);
    }
  });
  after(async () => {
    for (const controller of controllers) await controller.close();
    await gw.close();
  });

  it('prints one JSON entry per line for the chosen session', async () => {
    const { command, args, options } = cli(gw.home, ['--json', '--session', sessions[1] as string]);
    // Not spawnSync: the gateway runs in this process and must keep folding its journal meanwhile.
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const result = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString('utf8')));
    result.status = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(result.status, 0, result.stderr);
    const entries = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.session_id, sessions[1]);
    assert.equal(entries[0]?.origin, 'https://site1.example');
  });

  it('keeps printing new entries with --follow', async () => {
    const { command, args, options } = cli(gw.home, ['--follow', '--session', sessions[1] as string]);
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes(text)) {
            child.stdout.off('data', onData);
            resolve();
          }
        };
        child.stdout.on('data', onData);
        child.once('exit', (code) => reject(new Error(`audit --follow exited ${code}: ${output}`)));
      });
    try {
      await seen('https://site1.example');
      await navigate(sessions[1] as string, 'https://followed.example/next');
      await seen('https://followed.example');
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
