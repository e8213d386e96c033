/**
 * Secrets never leak: the API key, the operator key and sign-in secrets, tickets, pairing tokens and
 * typed text do not appear in the log (at
 * debug level), in error bodies, in URLs the gateway hands out, or in the process's command line; and
 * every secret is compared in constant time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApiKeyVerifier, secretsEqual } from '../../src/gateway/auth/api-key.js';
import { hashSecret, mintToken, parseToken, secretMatches } from '../../src/gateway/pairing/pairing-token.js';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import { rawUpgrade, register, TestController, ticketProtocols } from '../gateway/fixtures/controller.js';
import { makeHome, startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { cliEntry } from '../helpers/cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TYPED = 'my-bank-password-Zq81!';

describe('secrets in logs, errors and URLs', () => {
  let gw: TestGateway;
  const secrets: string[] = [];
  const bodies: string[] = [];

  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
    secrets.push(gw.key, TYPED);
    const sessionId = await gw.createSession();
    const keep = async (p: Promise<{ body: unknown }>) => bodies.push(JSON.stringify((await p).body));

    // Wrong keys, and a key-shaped guess that shares the real key's prefix.
    await keep(
      gw.request('GET', '/v1/sessions', { headers: { authorization: `Bearer ${gw.key.slice(0, 20)}wrong` } }),
    );
    await keep(
      gw.request('POST', '/v1/browser-control/register', {
        headers: { authorization: 'Bearer nope' },
        body: {},
      }),
    );

    // Tickets: used, replayed, smuggled in the query string.
    const ticket = await register(gw, { sessionId });
    secrets.push(ticket);
    const controller = await TestController.open(gw, ticket);
    controller.ws.on('message', (data) => {
      const frame = JSON.parse((data as Buffer).toString('utf8')) as {
        method: string;
        params: { command_id: string };
      };
      if (frame.method === 'browser.controller.command')
        controller.result(frame.params.command_id, true, { typed_into: '@e1', submitted: false });
    });
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket) }), 401);
    const smuggled = await register(gw, { sessionId, controllerId: 'other' });
    secrets.push(smuggled);
    await rawUpgrade(gw, {
      protocols: ticketProtocols(smuggled),
      path: `/v1/browser-control/ws?ticket=${smuggled}`,
    });

    // Typed text through the user's browser, and a failing call carrying it.
    await keep(
      gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_type`, {
        body: { ref: '@e1', text: TYPED },
      }),
    );
    await keep(
      gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_type`, {
        body: { ref: 'not a ref!', text: TYPED },
      }),
    );
    await keep(
      gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_type`, {
        body: { ref: '@e1', text: TYPED, extra: TYPED },
      }),
    );

    // Pairing: the token the extension collects, then used and misused.
    const ext = { origin: EXTENSION_ORIGIN, authorization: '' };
    const started = await gw.request('POST', '/v1/browser-control/pair', {
      body: { name: 'leak test' },
      headers: ext,
    });
    bodies.push(JSON.stringify(started.body));
    await gw.request('POST', '/v1/pairings/approve', {
      body: { code: (started.body as { code: string }).code },
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    // The owner's credential: its key, a sign-in link's code, and the browser session it buys.
    secrets.push(gw.operatorKey);
    const code =
      new URLSearchParams(new URL(gw.gateway.signInLink('/pair/x')).hash.slice(1)).get('code') ?? '';
    secrets.push(code);
    const signedIn = await gw.request('POST', '/operator/sign-in', {
      body: { code },
      headers: { authorization: '', origin: new URL(gw.url).origin },
    });
    secrets.push((signedIn.body as { proof: string }).proof);
    secrets.push(/=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1] ?? 'no cookie');
    await keep(
      gw.request('POST', '/operator/sign-in', {
        body: { code },
        headers: { authorization: '', origin: new URL(gw.url).origin },
      }),
    );
    await keep(
      gw.request('POST', '/v1/pairings/approve', {
        body: { code: 'ABCD-EFGH' },
        headers: { authorization: `Bearer ${gw.operatorKey}x` },
      }),
    );
    const collected = await gw.request(
      'POST',
      `/v1/browser-control/pair/${(started.body as { pairing_id: string }).pairing_id}/token`,
      {
        body: {},
        headers: ext,
      },
    );
    const token = (collected.body as { token: string }).token;
    secrets.push(token);
    await keep(gw.request('GET', '/v1/sessions', { headers: { authorization: `Bearer ${token}` } }));
    await keep(gw.request('GET', '/v1/capabilities', { headers: { authorization: `Bearer ${token}x` } }));
    await controller.close();
  });
  after(() => gw.close());

  it('writes none of them to the log, even at debug level', () => {
    const log = gw.logLines.join('\n');
    assert.ok(gw.logLines.length > 10, 'the flows were logged');
    for (const secret of secrets)
      assert.equal(log.includes(secret), false, `the log holds ${secret.slice(0, 6)}…`);
  });

  it('echoes none of them in error bodies', () => {
    const all = bodies.join('\n');
    assert.match(all, /invalid_api_key/);
    for (const secret of secrets) assert.equal(all.includes(secret), false);
  });

  it('puts no secret in the URLs it hands out', () => {
    const started = JSON.parse(bodies.find((b) => b.includes('approve_url')) ?? '{}') as {
      approve_url?: string;
    };
    assert.ok(started.approve_url);
    for (const secret of secrets) assert.equal(started.approve_url.includes(secret), false);
    assert.doesNotMatch(gw.logLines.join('\n'), /ticket=/);
  });
});

describe('secrets in the process', () => {
  it('keeps the API key out of the command line and the output of tabgate serve', async () => {
    const home = makeHome();
    const key = 'svc-key-' + 'k'.repeat(40);
    const child = spawn(process.execPath, [...cliEntry(), 'serve', '--port', '0'], {
      cwd: root,
      env: { ...process.env, TABGATE_HOME: home, API_SERVER_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString();
        if (output.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
    });
    try {
      const cmdline = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
      assert.equal(cmdline.includes(key), false);
      assert.equal(output.includes(key), false);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });
});

describe('constant-time comparisons', () => {
  it('compares the API key by digest, so any length or prefix is answered without throwing', () => {
    const verifier = new ApiKeyVerifier('the-real-key-0123456789');
    assert.equal(verifier.verify('the-real-key-0123456789'), true);
    for (const guess of ['', 't', 'the-real-key-012345678', 'the-real-key-01234567890', 'x'.repeat(10_000)])
      assert.equal(verifier.verify(guess), false);
    assert.equal(secretsEqual('a', 'a'.repeat(2)), false);
  });

  it('checks pairing token secrets against their stored hash with equal-length buffers', () => {
    const minted = mintToken();
    const parsed = parseToken(minted.token);
    assert.ok(parsed);
    assert.equal(secretMatches(parsed.secret, minted.secretHash), true);
    assert.equal(secretMatches('wrong', minted.secretHash), false);
    assert.equal(secretMatches('wrong', hashSecret('other').subarray(0, 5)), false);
  });
});
