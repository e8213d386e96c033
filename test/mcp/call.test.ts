import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { startTestSite, type TestSite } from '../testserver/server.js';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'tabgate.js');

interface CliOutput {
  ok?: boolean;
  session_id?: string;
  result?: { title?: string; snapshot?: string };
  error?: { code: string; message: string };
}

interface CliRun {
  code: number;
  json: CliOutput;
  stderr: string;
}

function withoutApiKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { API_SERVER_KEY: _ignored, ...rest } = env;
  return rest;
}

function tabgate(home: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      // The key comes from the home folder, as for a user who ran `tabgate serve` once.
      { env: { ...withoutApiKey(process.env), TABGATE_HOME: home } },
      (error, stdout, stderr) => {
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          json: JSON.parse(stdout.trim() || '{}') as CliOutput,
          stderr,
        });
      },
    );
  });
}

describe('tabgate call', () => {
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

  it('prints the JSON result of a tool call', async () => {
    const run = await tabgate(gw.home, [
      'call',
      'browser_navigate',
      '--gateway',
      gw.url,
      '--arg',
      `url=${site.url('/page2')}`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.ok, true);
    assert.equal(run.json.result?.title, 'Page two');
  });

  it('keeps a session across calls with --keep and --session', async () => {
    const first = await tabgate(gw.home, [
      'call',
      'browser_navigate',
      '--keep',
      '--gateway',
      gw.url,
      '--json',
      JSON.stringify({ url: site.url('/form') }),
    ]);
    assert.equal(first.code, 0, first.stderr);
    const second = await tabgate(gw.home, [
      'call',
      'browser_snapshot',
      '--session',
      first.json.session_id ?? '',
      '--gateway',
      gw.url,
      '--arg',
      'full=true',
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.json.result?.snapshot ?? '', /Test form/);
  });

  it('exits non-zero with the typed error on bad arguments', async () => {
    const run = await tabgate(gw.home, [
      'call',
      'browser_scroll',
      '--gateway',
      gw.url,
      '--arg',
      'direction=sideways',
    ]);
    assert.equal(run.code, 1);
    assert.equal(run.json.error?.code, 'invalid_arguments');
    assert.match(run.json.error?.message ?? '', /direction/);
  });

  it('exits non-zero with unknown_tool for a tool that does not exist', async () => {
    const run = await tabgate(gw.home, ['call', 'browser_teleport', '--gateway', gw.url]);
    assert.equal(run.code, 1);
    assert.equal(run.json.error?.code, 'unknown_tool');
  });
});
