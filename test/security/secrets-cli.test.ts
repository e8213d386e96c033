/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/**
 * The owner's vault as the owner uses it: `tabgate secrets` in another process, the value piped on
 * stdin, the files 0600 and holding no form of the value; a running gateway fills with what the CLI
 * just added, while the agent's API key reaches no vault route and a controller it registers itself
 * never receives a value.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { vaultFile, vaultKeyFile } from '../../src/gateway/secrets/index.js';
import { TestController } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { cliCommand } from '../helpers/cli-entry.js';
import { filesUnder, leaks } from './fixtures/leak-search.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VALUE = 'cli pässword/+7=?';

/**
 * `tabgate secrets add` on a real terminal (a pseudo-terminal from util-linux `script`): the value is
 * typed only once the prompt is shown, as a person would, and the whole terminal output is returned.
 */
function typedAtTerminal(home: string, name: string, typed: string): Promise<string> {
  const { API_SERVER_KEY: _key, ...env } = process.env;
  const command = `${cliCommand()} secrets add ${name} --origin https://tty.example`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: root,
    env: { ...env, TABGATE_HOME: home },
  });
  let output = '';
  let sent = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    if (!sent && output.includes('(not shown): ')) {
      sent = true;
      child.stdin.write(typed + '\r');
    }
  });
  return new Promise((resolve) => child.on('close', () => resolve(output)));
}

const hasScript = (process.env.PATH ?? '')
  .split(path.delimiter)
  .some((dir) => fs.existsSync(path.join(dir, 'script')));

describe('tabgate secrets', () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  before(async () => {
    backend = new RecordingBackend();
    gw = await startTestGateway({ backend });
  });
  after(() => gw.close());

  it('adds from stdin, lists without the value, and keeps both files 0600 with no form of it', async () => {
    const added = await tabgate(
      gw.home,
      ['secrets', 'add', 'bank', '--origin', 'https://bank.example', '--field', 'password'],
      VALUE + '\n',
    );
    assert.equal(added.code, 0, added.stderr);
    const listed = await tabgate(gw.home, ['secrets', 'list']);
    assert.match(listed.stdout, /^bank {2}https:\/\/bank\.example {2}password {2}added \d{4}-/m);
    for (const file of [vaultFile(gw.home), vaultKeyFile(gw.home)])
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, file);
    const places: { where: string; bytes: Buffer }[] = [added, listed].map((run, i) => ({
      where: `cli ${i}`,
      bytes: Buffer.from(run.stdout + run.stderr),
    }));
    places.push(...filesUnder(gw.home).map(({ file, bytes }) => ({ where: file, bytes })));
    assert.deepEqual(leaks([VALUE], places), []);
  });

  it('refuses a value given as an argument, a bad origin and a too short value, storing nothing', async () => {
    const runs = [
      await tabgate(gw.home, ['secrets', 'add', 'argv', '--origin', 'https://a.example', VALUE]),
      await tabgate(gw.home, ['secrets', 'add', 'plain', '--origin', 'http://a.example'], VALUE),
      await tabgate(gw.home, ['secrets', 'add', 'path', '--origin', 'https://a.example/login'], VALUE),
      await tabgate(gw.home, ['secrets', 'add', 'short', '--origin', 'https://a.example'], 'abc'),
    ];
    for (const run of runs) assert.equal(run.code, 1, run.stdout);
    const listed = await tabgate(gw.home, ['secrets', 'list']);
    assert.doesNotMatch(listed.stdout, /argv|plain|path|short/);
  });

  it('fills what the CLI just added, on a running gateway, without the value in the arguments', async () => {
    await tabgate(gw.home, ['secrets', 'add', 'mail', '--origin', 'https://mail.example'], VALUE);
    const sid = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_type`, {
      body: { ref: '@e1', secret: 'mail' },
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    const call = backend.calls.at(-1);
    assert.deepEqual(call?.secret, {
      name: 'mail',
      origin: 'https://mail.example',
      field: 'password',
      value: VALUE,
    });
    assert.deepEqual(call?.args, { ref: '@e1', secret: 'mail' });
  });

  it('gives the API key no way to the vault', async () => {
    for (const [method, route] of [
      ['GET', '/v1/secrets'],
      ['POST', '/v1/secrets'],
      ['GET', '/v1/secrets/bank'],
      ['DELETE', '/v1/secrets/bank'],
    ] as const) {
      const result = await gw.request(method, route, method === 'POST' ? { body: { name: 'x' } } : {});
      assert.equal(result.status, 404, `${method} ${route}`);
      assert.deepEqual(
        leaks([VALUE], [{ where: route, bytes: Buffer.from(JSON.stringify(result.body)) }]),
        [],
      );
    }
  });

  it('sends no value to a controller the API key registered, and says why', async () => {
    const sid = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId: sid });
    try {
      const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_type`, {
        body: { ref: '@e1', secret: 'bank' },
      });
      assert.equal(result.status, 503, JSON.stringify(result.body));
      assert.equal(result.body.error.code, 'controller_unavailable');
      assert.match(result.body.error.message, /paired/);
      await controller.nothing('browser.controller.command');
    } finally {
      await controller.close();
    }
  });

  it(
    'reads a value typed at a terminal without echoing it',
    { skip: hasScript ? false : 'util-linux `script` is not installed, so there is no terminal to type at' },
    async () => {
      const typed = 'typed at a tty 42';
      const output = await typedAtTerminal(gw.home, 'tty', typed);
      assert.match(output, /Stored tty \(password\)/);
      assert.deepEqual(leaks([typed], [{ where: 'terminal', bytes: Buffer.from(output) }]), []);
      const sid = await gw.createSession();
      await gw.request('POST', `/v1/sessions/${sid}/tools/browser_type`, {
        body: { ref: '@e1', secret: 'tty' },
      });
      assert.equal(backend.calls.at(-1)?.secret?.value, typed);
    },
  );

  it('never fills an entry whose origin was changed in the file', async () => {
    await tabgate(gw.home, ['secrets', 'add', 'moved', '--origin', 'https://right.example'], VALUE);
    const file = vaultFile(gw.home);
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace('https://right.example', 'https://evil.example'),
    );
    const sid = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_type`, {
      body: { ref: '@e1', secret: 'moved' },
    });
    assert.equal(result.body.error?.code, 'unknown_secret', JSON.stringify(result.body));
  });

  it('runs no call while the vault cannot be read, and runs again once it is fixed', async () => {
    const file = vaultFile(gw.home);
    const good = fs.readFileSync(file);
    const sid = await gw.createSession();
    const calls = backend.calls.length;
    fs.writeFileSync(file, '{ not json');
    try {
      const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_tabs`, { body: {} });
      assert.equal(result.status, 500, JSON.stringify(result.body));
      assert.equal(result.body.error.code, 'internal_error');
      assert.match(result.body.error.message, /vault/);
      assert.equal(backend.calls.length, calls);
    } finally {
      fs.writeFileSync(file, good);
    }
    const again = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_tabs`, { body: {} });
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  it('removes a secret, after which filling it is unknown_secret', async () => {
    assert.equal((await tabgate(gw.home, ['secrets', 'remove', 'mail'])).code, 0);
    assert.equal((await tabgate(gw.home, ['secrets', 'remove', 'mail'])).code, 1);
    const sid = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_type`, {
      body: { ref: '@e1', secret: 'mail' },
    });
    assert.equal(result.status, 404);
    assert.equal(result.body.error.code, 'unknown_secret');
  });
});
