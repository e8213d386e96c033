/**
 * Pairing from the extension's side: ask the gateway, show the code, open the approval page, and poll
 * for the token until it comes, the person denies, the request expires, or the person cancels. The
 * request is durable, so a worker Chrome stopped mid-pairing resumes polling when the alarm wakes it.
 */
import { chrome } from '../chrome-api.js';
import { parseGatewayAddress } from '../gateway-address.js';
import { readLocal, writeLocal, writeLocals, writeSession } from './durable-state.js';
import { GatewayError, pollPairing, revokeOwnPairing, startPairing, withdrawPairing } from './gateway-api.js';

const POLL_MS = 1000;
let polling: Promise<void> | null = null;
/** Ends the poll loop's wait early, so a cancel does not wait out a whole poll period. */
let wakePoll: (() => void) | null = null;

/**
 * Checks the address, saves it (the person typed it; it is the gateway from now on), and asks that
 * gateway to pair. An address that is not one, or a gateway that does not answer, throws with a reason
 * the popup shows next to the field.
 */
export async function beginPairing(gatewayUrl: string | undefined, openApprovalPage: boolean): Promise<void> {
  const address = parseGatewayAddress(gatewayUrl ?? (await readLocal('gateway_url')));
  if (!address.ok) throw new GatewayError('invalid_gateway_url', address.message, 0);
  await writeLocal('gateway_url', address.url);
  await writeSession('pairing_error', null);
  const started = await startPairing(
    address.url,
    `tabgate extension (${navigator.userAgent.includes('Edg/') ? 'Edge' : 'Chromium'})`,
  );
  // A new request replaces whatever this browser held; "revoked" is over once the person pairs again.
  await writeLocals({
    pending_pairing: {
      pairing_id: started.pairing_id,
      code: started.code,
      approve_url: started.approve_url,
      expires_at: Date.now() + started.expires_in_seconds * 1000,
    },
    revoked: false,
  });
  await writeSession('gateway_check', 'unknown');
  if (openApprovalPage) await chrome.tabs.create({ url: started.approve_url, active: true });
  void resumePairing();
}

/** Polls while a request waits; single-flight, so the alarm and the popup never poll twice. */
export function resumePairing(): Promise<void> {
  return (polling ??= poll().finally(() => {
    polling = null;
  }));
}

/**
 * Abandons the waiting request: once this returns nothing polls for it any more, and the gateway is
 * told to forget it, so approving its code later pairs nothing (the gateway mints a token only when
 * the extension collects it, and a withdrawn request can no longer be collected).
 */
export async function cancelPairing(): Promise<void> {
  const pending = await readLocal('pending_pairing');
  if (pending) {
    // Best effort: an unreachable gateway lets the request expire on its own in two minutes.
    await withdrawPairing(await readLocal('gateway_url'), pending.pairing_id).catch(() => undefined);
  }
  await writeLocal('pending_pairing', null);
  await writeSession('pairing_error', null);
  wakePoll?.();
  await polling;
}

async function poll(): Promise<void> {
  for (;;) {
    const pending = await readLocal('pending_pairing');
    if (!pending) return;
    if (Date.now() > pending.expires_at + 5000) {
      await writeLocal('pending_pairing', null);
      await writeSession('pairing_error', {
        code: 'pairing_expired',
        message: 'The pairing request expired before it was approved; pair again.',
      });
      return;
    }
    try {
      const answer = await pollPairing(await readLocal('gateway_url'), pending.pairing_id);
      if (answer.status === 'approved') {
        // Cancelled while this poll was on its way: the person said no, so the token is dropped.
        if ((await readLocal('pending_pairing'))?.pairing_id !== pending.pairing_id) return;
        // One write: the popup must never see the token and the pending code together.
        await writeLocals({
          pairing: { token: answer.token, grant_id: answer.grant_id, name: answer.name },
          pending_pairing: null,
          revoked: false,
        });
        await writeSession('status', { state: 'idle', error: null, attempt: 0 });
        await writeSession('gateway_check', 'unknown');
        return;
      }
    } catch (error) {
      if (error instanceof GatewayError && error.code !== 'network') {
        if ((await readLocal('pending_pairing'))?.pairing_id !== pending.pairing_id) return;
        await writeLocal('pending_pairing', null);
        await writeSession('pairing_error', { code: error.code, message: error.message });
        return;
      }
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      wakePoll = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakePoll = null;
  }
}

/** Unpair: the gateway revokes this browser's grant, and this browser forgets its token. */
export async function forgetPairing(): Promise<void> {
  const pairing = await readLocal('pairing');
  if (pairing) {
    // Best effort: an unreachable gateway keeps the grant until `tabgate pair revoke`, but this browser
    // no longer holds its token either way.
    await revokeOwnPairing(await readLocal('gateway_url'), pairing.token).catch(() => undefined);
  }
  await writeLocals({ pairing: null, pending_pairing: null, revoked: false });
  await writeSession('pairing_error', null);
}

/** The gateway refused the token this browser held: the pairing is gone; only pairing again helps. */
export async function pairingRevoked(): Promise<void> {
  await writeLocals({ pairing: null, pending_pairing: null, revoked: true });
}
