/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The files of a browser_upload to the user's tab go only to the owner's paired tabgate extension, which
 * asks the person first (test/extension/user-tab-files.e2e.test.ts). A generic protocol-v1 controller
 * the API key registered may ask for the capability by name, but gets no file: even with the approval
 * classes off, the gateway refuses before it reads anything and the controller hears of nothing.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CONTROLLER_CAPABILITIES, EXTENDED_CONTROLLER_CAPABILITIES } from '../../src/protocol/index.js';
import { TestController } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { tempDir } from '../helpers/temp-dir.js';

describe("browser_upload to the user's tab through a controller the API key registered", () => {
  const root = tempDir('upload-controller');
  let gw: TestGateway | undefined;
  after(async () => {
    await gw?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is refused with controller_unavailable, and no file is sent', async () => {
    const file = join(root, 'report.txt');
    writeFileSync(file, 'quarterly numbers');
    gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: {
        browser: { upload_roots: [root], extension_control: { enabled: true, command_timeout: 5 } },
        safety: { approvals: { user_tab: 'none' } },
      },
    });
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, {
      sessionId,
      capabilities: [...CONTROLLER_CAPABILITIES, ...EXTENDED_CONTROLLER_CAPABILITIES],
    });
    const result = await gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_upload`, {
      body: { ref: '@e1', paths: [file] },
    });
    assert.equal(result.body.error?.code, 'controller_unavailable', JSON.stringify(result.body));
    assert.match(String(result.body.error.message), /paired/);
    await controller.nothing('browser.controller.command');
    await controller.close();
  });
});
