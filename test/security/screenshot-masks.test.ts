/**
 * Screenshots never show a secret as pixels (docs/secrets.md): on the local Chromium, a field the engine
 * filled from the vault is boxed in every later screenshot of the session whatever the secret's kind
 * (here a username and a card number typed into fields that say nothing of being secret), and so are
 * the fields whose autocomplete names a card's number, security code or expiry, a one-time code or a
 * password, in the main frame and in an iframe. Read back from the decoded PNG.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { Vault } from '../../src/gateway/secrets/index.js';
import type { ScreenshotResult } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { MASK_FIELDS, startLoginSite, type LoginSite } from './fixtures/login-site.js';
import { toolSession } from './fixtures/tool-session.js';

type Rgb = [number, number, number];
const isBlack = ([r, g, b]: Rgb) => r < 30 && g < 30 && b < 30;
const isYellow = ([r, g, b]: Rgb) => r > 220 && g > 220 && b < 60;

/** The colour near a field's right end, where no short value reaches. */
function middleOf(shot: ScreenshotResult, field: keyof typeof MASK_FIELDS): Rgb {
  const png = PNG.sync.read(Buffer.from(shot.data, 'base64'));
  const { x, y } = MASK_FIELDS[field];
  const at = (png.width * (y + 20) + (x + 180)) * 4;
  return [png.data[at] ?? -1, png.data[at + 1] ?? -1, png.data[at + 2] ?? -1];
}

describe('screenshots mask secret fields on the local browser', () => {
  let site: LoginSite;
  let gw: TestGateway;
  let sid: string;
  const { ok, refOf } = toolSession((tool, args) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args }),
  );
  const shot = async (args: Record<string, unknown> = {}) =>
    (await ok('browser_screenshot', args)) as unknown as ScreenshotResult;

  before(async () => {
    site = await startLoginSite();
    gw = await startTestGateway({ config: { browser: { command_timeout: 20 } } });
    const vault = new Vault(gw.home);
    vault.add({ name: 'login', origin: site.origin, field: 'username', value: 'alice' }, new Date());
    vault.add({ name: 'card', origin: site.origin, field: 'card', value: '4111111111111111' }, new Date());
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it('boxes the card, one-time-code and password fields by their kind, in the page and its iframe', async () => {
    await ok('browser_navigate', { url: `${site.origin}/masks` });
    for (const args of [{}, { annotate: true }, { full_page: true }]) {
      const taken = await shot(args);
      for (const field of ['expiry', 'csc', 'month', 'code', 'framed'] as const)
        assert.ok(isBlack(middleOf(taken, field)), `${field} shows in ${JSON.stringify(args)}`);
      for (const field of ['login', 'card', 'plain'] as const)
        assert.ok(isYellow(middleOf(taken, field)), `${field} is masked before any secret went in`);
      assert.equal(taken.masked, 5);
    }
  });

  it('boxes every field the vault filled, whatever kind of secret, in every later screenshot', async () => {
    await ok('browser_navigate', { url: `${site.origin}/masks` });
    await ok('browser_type', { ref: await refOf('textbox "Login name"'), secret: 'login' });
    await ok('browser_type', { ref: await refOf('textbox "Card"'), secret: 'card' });
    await ok('browser_type', { ref: await refOf('textbox "Plain"'), text: 'plain' });
    for (const args of [{}, { annotate: true }, { full_page: true }, {}]) {
      const taken = await shot(args);
      for (const field of ['login', 'card', 'expiry', 'framed'] as const)
        assert.ok(isBlack(middleOf(taken, field)), `${field} shows in ${JSON.stringify(args)}`);
      assert.ok(isYellow(middleOf(taken, 'plain')), 'a field the agent typed into is not a secret');
      assert.equal(taken.masked, 7);
    }
  });
});
