/**
 * Releases provider sessions when the process is told to stop, so a killed gateway does not leave paid
 * cloud browsers running until they time out. On SIGINT/SIGTERM the cleanup runs (bounded by the
 * providers' emergency timeouts) and then, if no one else handles the signal, the process exits the way
 * the signal would have made it. On `beforeExit` (the loop ran dry) it runs too. At `exit` no network
 * call can complete any more, so sessions still open are only logged, by id.
 */
import type { Logger } from '../../../log/logger.js';
import type { ProviderBackend } from './provider-backend.js';

export interface EmergencyHooks {
  /** Removes the listeners (tests, and a gateway that shut down cleanly). */
  dispose(): void;
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

export function installEmergencyCleanup(
  backend: ProviderBackend,
  log: Logger,
  target: NodeJS.Process = process,
): EmergencyHooks {
  let ran: Promise<void> | undefined;
  let open = 0;
  const run = () => {
    ran ??= (async () => {
      open = (await backend.openSessions()).size;
      await backend.emergencyCleanup();
      open = 0;
    })();
    return ran;
  };
  const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    // Someone else (the gateway's graceful shutdown) handles this signal: leave exiting to them.
    const handledElsewhere = target.listenerCount(signal) > 1;
    void run().finally(() => {
      if (!handledElsewhere) target.exit(SIGNAL_EXIT_CODES[signal]);
    });
  };
  const onSigint = () => onSignal('SIGINT');
  const onSigterm = () => onSignal('SIGTERM');
  const onBeforeExit = () => void run();
  const onExit = () => {
    if (open > 0)
      log.warn('exiting with provider sessions still open; they end at their provider timeout', {
        provider: backend.name,
        sessions: open,
      });
  };
  target.on('SIGINT', onSigint);
  target.on('SIGTERM', onSigterm);
  target.on('beforeExit', onBeforeExit);
  target.on('exit', onExit);
  return {
    dispose() {
      target.off('SIGINT', onSigint);
      target.off('SIGTERM', onSigterm);
      target.off('beforeExit', onBeforeExit);
      target.off('exit', onExit);
    },
  };
}
