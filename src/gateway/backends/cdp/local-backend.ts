/**
 * The default backend: a headless Chromium that tabgate launches itself on the first call, one process
 * for all local sessions, each session in its own browser context.
 */
import type { Logger } from '../../../log/logger.js';
import type { TimerClock } from '../../clock.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import type { SiteRulesSource } from '../site-rules-source.js';
import { CdpConnection } from './cdp-connection.js';
import type { SourceEnvironment } from './chromium-environment.js';
import { launchChromium } from './chromium-process.js';
import { EngineBackend, type OpenBrowser } from './engine-backend.js';

export interface LocalChromiumOptions {
  /** The gateway's; Chromium gets only its allowlisted part (chromium-environment.ts). */
  environment?: SourceEnvironment;
  /** Site grants (docs/safety.md); none judged without it. */
  sites?: SiteRulesSource;
  /** Deadlines, admission waits and idle-outs run on it (the system's by default). */
  clock?: TimerClock;
}

export function createLocalChromiumBackend(
  settings: BrowserSettings,
  log: Logger,
  { environment = {}, sites, clock }: LocalChromiumOptions = {},
): EngineBackend {
  return new EngineBackend(
    {
      name: 'local',
      remote: false,
      isolated: true,
      async open(): Promise<OpenBrowser> {
        const chromium = await launchChromium({
          executablePath: settings.executablePath,
          headed: settings.headed,
          extraArgs: settings.chromiumArgs,
          environment,
        });
        const { sandbox, removedAbandoned } = chromium;
        if (removedAbandoned > 0) {
          log.info('removed browser folders a killed gateway left', { count: removedAbandoned });
        }
        if (sandbox.sandboxed) log.info('chromium started', { pid: chromium.pid, sandbox: sandbox.via });
        else log.warn('chromium started without its sandbox', { pid: chromium.pid, reason: sandbox.reason });
        const connection = CdpConnection.overPipe(chromium.toBrowser, chromium.fromBrowser);
        // If Chromium dies, the pipe closes and the backend reports the crash.
        chromium.onExit(() => connection.close());
        return {
          connection,
          async dispose() {
            connection.close();
            await chromium.kill();
          },
        };
      },
    },
    settings,
    log,
    sites,
    clock,
  );
}
