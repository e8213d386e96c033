/**
 * Pairing from the extension's side: ask the gateway, show the code, open the approval page, and poll
 * for the token until it comes, the person denies, or the request expires. The request is durable, so a
 * worker Chrome stopped mid-pairing resumes polling when the alarm wakes it.
 */
import { chrome } from '../chrome-api.js';
import { readLocal, writeLocal, writeLocals, writeSession } from './durable-state.js';
import { GatewayError, pollPairing, startPairing } from './gateway-api.js';

const POLL_MS = 1000;
let polling: Promise<void> | null = null;
let lastError: { code: string; message: string } | null = null;

export const pairingError = (): { code: string; message: string } | null => lastError;

export async function beginPairing(openApprovalPage: boolean): Promise<void> {
  const base = await readLocal('gateway_url');
  lastError = null;
  const started = await startPairing(
    base,
    `tabgate extension (${navigator.userAgent.includes('Edg/') ? 'Edge' : 'Chromium'})`,
  );
  await writeLocal('pending_pairing', {
    pairing_id: started.pairing_id,
    code: started.code,
    approve_url: started.approve_url,
    expires_at: Date.now() + started.expires_in_seconds * 1000,
  });
  if (openApprovalPage) await chrome.tabs.create({ url: started.approve_url, active: true });
  void resumePairing();
}

/** Polls while a request waits; single-flight, so the alarm and the popup never poll twice. */
export function resumePairing(): Promise<void> {
  return (polling ??= poll().finally(() => {
    polling = null;
  }));
}

async function poll(): Promise<void> {
  for (;;) {
    const pending = await readLocal('pending_pairing');
    if (!pending) return;
    if (Date.now() > pending.expires_at + 5000) {
      lastError = { code: 'pairing_expired', message: 'The pairing request expired; pair again.' };
      await writeLocal('pending_pairing', null);
      return;
    }
    try {
      const answer = await pollPairing(await readLocal('gateway_url'), pending.pairing_id);
      if (answer.status === 'approved') {
        // One write: the popup must never see the token and the pending code together.
        await writeLocals({
          pairing: { token: answer.token, grant_id: answer.grant_id, name: answer.name },
          pending_pairing: null,
        });
        await writeSession('status', { state: 'idle', error: null, attempt: 0 });
        return;
      }
    } catch (error) {
      if (error instanceof GatewayError && error.code !== 'network') {
        lastError = { code: error.code, message: error.message };
        await writeLocal('pending_pairing', null);
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function forgetPairing(): Promise<void> {
  await writeLocals({ pairing: null, pending_pairing: null });
}
