/**
 * The owner is not the agent, and no other local process is the owner: a separate process without the
 * API key plays the whole pairing takeover with every header forged — as the same OS user, and as
 * another OS user where the test can create one — and gets no token. The owner's operator key then
 * approves the same request, so the refusals are the credential's doing, not a broken flow.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runPair } from '../../src/cli/commands/pair.js';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { collect } from '../extension/pairing-helpers.js';
import { tempDir } from '../helpers/temp-dir.js';

const ATTACK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'pairing-attack.mjs');
const INTRUDER = 'tabgate-intruder';

interface AttackReport {
  started: number;
  pageTokenSeen: boolean;
  files: Record<string, string>;
  approvals: { pathname: string; status: number; code: string | null }[];
  collected: { status: number; token: boolean };
}

/** Runs a program without blocking this process, which serves the gateway the attacker talks to. */
function run(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({ status: error ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
    });
  });
}

function parseReport(stdout: string): AttackReport {
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as AttackReport;
}

function assertNoToken(report: AttackReport): void {
  assert.equal(report.started, 201, 'a forged Origin can still ask to pair');
  for (const approval of report.approvals) {
    assert.ok(approval.status === 403 || approval.status === 401, JSON.stringify(approval));
  }
  assert.deepEqual(report.collected, { status: 202, token: false });
}

/** Whether this machine lets the test run a process as another OS user (root, with useradd and runuser). */
function intruderAvailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot create another OS user';
  for (const tool of ['useradd', 'runuser']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  if (spawnSync('id', ['-u', INTRUDER]).status !== 0) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', INTRUDER]);
  }
  return null;
}

describe('a local process without the owner credential cannot pair itself', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  it('gets no token with every header forged, as the same OS user without the API key', async () => {
    const { API_SERVER_KEY: _key, ...env } = process.env;
    const attack = await run(process.execPath, [ATTACK, gw.url, gw.home, EXTENSION_ORIGIN], { env });
    assert.equal(attack.status, 0, attack.stderr);
    const report = parseReport(attack.stdout);
    assertNoToken(report);
    assert.ok(
      report.approvals.every((a) =>
        ['operator_required', 'sign_in_invalid', 'forbidden_origin'].includes(a.code ?? ''),
      ),
      JSON.stringify(report.approvals),
    );
    // The owner approves the very same request with the operator key: then, and only then, a token.
    const pending = (await gw.request('GET', '/v1/pairings', {
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    })) as { body: { pending: { pairing_id: string }[] } };
    const request = pending.body.pending.at(-1);
    assert.ok(request, 'the attacker left its request waiting');
    const page = await fetch(`${gw.url}/pair/${request.pairing_id}`).then((r) => r.text());
    const code = /<p id="code">([A-Z0-9-]+)<\/p>/.exec(page)?.[1] ?? '';
    await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'approve', code);
    assert.equal((await collect(gw, request.pairing_id)).status, 200);
  });

  it('gets no token and reads no key file as another OS user', async (t) => {
    const skip = intruderAvailable();
    if (skip) {
      t.skip(skip);
      return;
    }
    // The intruder can read the script and run node, nothing of the owner's.
    const dir = tempDir('intruder');
    fs.chmodSync(dir, 0o755);
    const script = path.join(dir, 'attack.mjs');
    fs.copyFileSync(ATTACK, script);
    fs.chmodSync(script, 0o644);
    try {
      const attack = await run(
        'runuser',
        ['-u', INTRUDER, '--', process.execPath, script, gw.url, gw.home, EXTENSION_ORIGIN],
        { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      );
      assert.equal(attack.status, 0, attack.stderr);
      const report = parseReport(attack.stdout);
      assert.deepEqual(report.files, { api_key: 'EACCES', operator_key: 'EACCES' });
      assertNoToken(report);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
