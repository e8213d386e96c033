/**
 * The conformance harness of the local Chromium backend (local-1, -2 and -3.test.ts run the suite's
 * parts on it): one Chromium per test file, a context per case. Host names of the test site come
 * through `--host-resolver-rules` in `chromiumArgs`, so the two origins are two different sites (the
 * cross-origin iframe is out-of-process).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { startTestSite } from '../testserver/server.js';
import { killChromiumByMarker } from '../engine/chromium-processes.js';
import { backendSessions } from './backend-sessions.js';
import { onTestSite, type ConformanceHarness } from './harness.js';
import { tempDir } from '../helpers/temp-dir.js';

export async function localChromiumHarness(): Promise<ConformanceHarness> {
  const site = await startTestSite({ hosts: ['site-a.tabgate.test', 'site-b.tabgate.test'] });
  const marker = `--tabgate-test-marker=${randomUUID()}`;
  const home = tempDir('conformance');
  const uploadRoot = join(home, 'uploads');
  await mkdir(uploadRoot);
  const settings = {
    ...DEFAULT_BROWSER_SETTINGS,
    chromiumArgs: ['--host-resolver-rules=MAP *.tabgate.test 127.0.0.1', marker],
    snapshotMaxChars: 4000,
    downloadsDir: join(home, 'downloads'),
    downloadMaxBytes: 1024 * 1024,
    uploadRoots: [uploadRoot],
  };
  const backend = createLocalChromiumBackend(settings, silentLogger);
  return {
    ...onTestSite(site, settings.snapshotMaxChars),
    files: { uploadRoot, downloadMaxBytes: settings.downloadMaxBytes },
    newSession: backendSessions(backend, 'conformance'),
    crashBrowser: () => killChromiumByMarker(marker),
    async close() {
      await backend.close();
      await site.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
