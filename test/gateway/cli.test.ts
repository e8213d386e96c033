import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeHome } from './fixtures/gateway.js';
import { cliEntry } from '../helpers/cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = cliEntry();

/** The test's own environment without a configured key, so the gateway generates one. */
function envFor(home: string): NodeJS.ProcessEnv {
  const { API_SERVER_KEY: _ignored, ...env } = process.env;
  return { ...env, TABGATE_HOME: home };
}

describe('tabgate serve', () => {
  let home: string;
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let url = '';

  before(async () => {
    home = makeHome();
    child = spawn(process.execPath, [...cli, 'serve', '--port', '0'], {
      cwd: root,
      env: envFor(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /tabgate listening on (http:\/\/\S+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
  });
  after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('refuses to start where it cannot listen with a sentence and exit 1, not a stack trace', () => {
    const other = makeHome();
    try {
      for (const [flags, said] of [
        [['--port', new URL(url).port], /^tabgate: cannot listen on 127\.0\.0\.1:\d+: the port is in use/m],
        [
          ['--host', '192.0.2.1', '--port', '0'],
          /^tabgate: cannot listen on 192\.0\.2\.1:0: that address is not one of this machine's/m,
        ],
      ] as const) {
        const run = spawnSync(process.execPath, [...cli, 'serve', ...flags], {
          cwd: root,
          env: envFor(other),
          encoding: 'utf8',
          timeout: 20_000,
        });
        assert.equal(run.status, 1, run.stderr);
        assert.match(run.stderr, said);
        assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('answers requests with the key `tabgate key` prints, then exits 0 on SIGTERM without logging the key', async () => {
    const keyRun = spawnSync(process.execPath, [...cli, 'key'], {
      cwd: root,
      env: envFor(home),
      encoding: 'utf8',
    });
    const key = keyRun.stdout.trim();
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(fs.statSync(path.join(home, 'api_key')).mode & 0o777, 0o600);
    assert.match(stdout, new RegExp(`API key: stored in ${path.join(home, 'api_key')}`));

    const created = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(created.status, 201);
    const refused = await fetch(`${url}/v1/sessions?token=${key}`, {
      headers: { authorization: 'Bearer wrong' },
    });
    assert.equal(refused.status, 401);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(stderr, /request method=POST path=\/v1\/sessions status=201/);
    assert.ok(!stdout.includes(key) && !stderr.includes(key), 'the key appeared in the output');
  });
});
