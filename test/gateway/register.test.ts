/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  CONTROLLER_CAPABILITIES,
  EXTENDED_CONTROLLER_CAPABILITIES,
  REGISTER_PATH,
} from '../../src/protocol/index.js';
import { registrationBody } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

describe('POST /v1/browser-control/register', () => {
  let gw: TestGateway;
  let sessionId: string;
  const body = () => registrationBody({ sessionId });
  const post = (payload: unknown, headers?: Record<string, string>) =>
    gw.request('POST', REGISTER_PATH, { body: payload, headers });

  before(async () => {
    gw = await startTestGateway();
    sessionId = await gw.createSession();
  });
  after(() => gw.close());

  it('answers 404 browser_control_disabled while the feature is off', async () => {
    gw.writeConfig({ browser: { extension_control: { enabled: 'true' } } });
    try {
      const result = await post(body(), { authorization: 'Bearer wrong' });
      assert.equal(result.status, 404);
      assert.equal(result.body.error.code, 'browser_control_disabled');
    } finally {
      gw.writeConfig({ browser: { extension_control: { enabled: true } } });
    }
  });

  it('answers 401 invalid_api_key for a missing or wrong bearer, before looking at the body', async () => {
    const result = await post('not an object', { authorization: 'Bearer wrong' });
    assert.equal(result.status, 401);
    assert.equal(result.body.error.code, 'invalid_api_key');
  });

  it('answers 400 browser_control_invalid_registration for a body that is not an object', async () => {
    for (const payload of [[1], 'x', null]) {
      const result = await post(payload);
      assert.equal(result.status, 400);
      assert.equal(result.body.error.code, 'browser_control_invalid_registration');
    }
    const malformed = await gw.request('POST', REGISTER_PATH, {
      raw: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.body.error.code, 'browser_control_invalid_registration');
  });

  it('answers 400 browser_control_invalid_registration for a missing, empty, non-string or long id', async () => {
    for (const field of ['session_id', 'controller_id', 'browser_profile_id']) {
      for (const value of [undefined, '', 7, 'x'.repeat(257)]) {
        const payload = { ...body(), [field]: value };
        const result = await post(payload);
        assert.equal(result.status, 400, `${field}=${String(value)}`);
        assert.equal(result.body.error.code, 'browser_control_invalid_registration');
      }
    }
  });

  it('answers 400 browser_control_protocol_unsupported unless protocol_version is the integer 1', async () => {
    for (const version of [true, '1', 1.5, 2, undefined]) {
      const result = await post({ ...body(), protocol_version: version });
      assert.equal(result.status, 400, String(version));
      assert.equal(result.body.error.code, 'browser_control_protocol_unsupported');
    }
  });

  it('answers 400 browser_control_no_capabilities when nothing requested is allowed', async () => {
    for (const capabilities of [[], ['browser_cdp', 'browser_evaluate', 7], 'browser_click', undefined]) {
      const result = await post({ ...body(), capabilities });
      assert.equal(result.status, 400);
      assert.equal(result.body.error.code, 'browser_control_no_capabilities');
    }
  });

  it('answers 403 browser_control_session_forbidden for a session the server does not have', async () => {
    const result = await post({ ...body(), session_id: 'sess_unknown' });
    assert.equal(result.status, 403);
    assert.equal(result.body.error.code, 'browser_control_session_forbidden');
  });

  it('answers 201 with a ticket and a scope whose principal the server derived', async () => {
    const result = await post({
      ...body(),
      principal_id: 'attacker',
      capabilities: ['browser_click', 'browser_cdp'],
    });
    assert.equal(result.status, 201);
    assert.match(result.body.ticket, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(result.body.protocol_version, 1);
    assert.equal(result.body.ws_path, '/v1/browser-control/ws');
    assert.ok(result.body.ticket_expires_at > Date.now() / 1000);
    assert.ok(result.body.ticket_expires_in_seconds > 0 && result.body.ticket_expires_in_seconds <= 30);
    assert.deepEqual(result.body.scope, {
      principal_id: 'owner',
      profile_id: 'default',
      session_id: sessionId,
      controller_id: 'ctrl-1',
      browser_profile_id: 'profile-1',
      transport_family: 'local-api',
      capabilities: ['browser_click'],
    });
  });

  it("grants a reference client exactly the reference protocol's capabilities it asked for", async () => {
    const result = await post({ ...body(), capabilities: [...CONTROLLER_CAPABILITIES] });
    assert.equal(result.status, 201);
    assert.deepEqual(result.body.scope.capabilities, [...CONTROLLER_CAPABILITIES].sort());
  });

  it("grants tabgate's extra capabilities only by name, and never raw CDP, scripts or console", async () => {
    const result = await post({
      ...body(),
      capabilities: [
        'browser_click',
        ...EXTENDED_CONTROLLER_CAPABILITIES,
        'browser_cdp',
        'browser_evaluate',
        'browser_console',
      ],
    });
    assert.equal(result.status, 201);
    assert.deepEqual(
      result.body.scope.capabilities,
      ['browser_click', ...EXTENDED_CONTROLLER_CAPABILITIES].sort(),
    );
  });

  it('never writes the ticket or the key into the log', async () => {
    const result = await post(body());
    const log = gw.logLines.join('\n');
    assert.ok(!log.includes(result.body.ticket));
    assert.ok(!log.includes(gw.key));
  });
});

describe('register without an API key', () => {
  it('answers 403 browser_control_auth_required when the key is configured empty', async () => {
    const gw = await startTestGateway({
      config: {
        gateway: { host: '127.0.0.1', port: 0, api_server: { key: '' } },
        browser: { extension_control: { enabled: true } },
      },
    });
    try {
      const result = await gw.request('POST', REGISTER_PATH, { body: registrationBody({ sessionId: 'x' }) });
      assert.equal(result.status, 403);
      assert.equal(result.body.error.code, 'browser_control_auth_required');
    } finally {
      await gw.close();
    }
  });
});

describe('GET /v1/capabilities', () => {
  it('advertises the feature with the live flag, the allowlist and the endpoints', async () => {
    const gw = await startTestGateway({ config: {} });
    try {
      const off = await gw.request('GET', '/v1/capabilities');
      assert.equal(off.status, 200);
      const feature = off.body.features.browser_extension_control;
      assert.equal(feature.enabled, false);
      assert.equal(feature.protocol_version, 1);
      assert.deepEqual(new Set(feature.capabilities), new Set(CONTROLLER_CAPABILITIES));
      assert.equal(feature.real_browser_actions, true);
      assert.deepEqual(feature.transports, {
        local_vps: 'websocket-subprotocol-ticket',
        cloud: 'authenticated-gateway-rpc',
      });
      assert.deepEqual(off.body.endpoints.browser_control_ws, {
        method: 'GET',
        path: '/v1/browser-control/ws',
      });
      gw.writeConfig({ browser: { extension_control: { enabled: true } } });
      const on = await gw.request('GET', '/v1/capabilities');
      assert.equal(on.body.features.browser_extension_control.enabled, true);
    } finally {
      await gw.close();
    }
  });
});
