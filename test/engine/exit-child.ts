/**
 * A child process for the shutdown test: opens the local backend, browses once, prints READY, then waits
 * for a signal (closing the backend the way the gateway does) or exits on its own without closing.
 * Usage: exit-child.ts <marker> <url> <signal|exit>
 */
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';

const [marker = '', url = 'about:blank', mode = 'signal'] = process.argv.slice(2);
const backend = createLocalChromiumBackend(
  { ...DEFAULT_BROWSER_SETTINGS, chromiumArgs: [marker] },
  silentLogger,
);
await backend.call({ sessionId: 'child', tool: 'browser_navigate', args: { url }, toolCallId: null });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void backend.close().then(() => process.exit(0));
  });
}
process.stdout.write('READY\n');
if (mode === 'exit') process.exit(0); // no close(): the last-resort exit hook must clean up
setInterval(() => undefined, 1000);
