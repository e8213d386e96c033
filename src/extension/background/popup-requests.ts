/** The worker's side of the popup's requests: validated, then run against the durable state. */
import { chrome, type MessageSender } from '../chrome-api.js';
import { requestSchema, type Response, type StatusView } from '../messages.js';
import type { ControllerLink } from './controller-link.js';
import { readLocal, readSession, writeLocal, writeSession } from './durable-state.js';
import type { CommandExecutor } from './executor.js';
import { GatewayError, listSessions } from './gateway-api.js';
import { beginPairing, forgetPairing, pairingError } from './pairing-flow.js';
import { endShare, startShare } from './share.js';
import type { SharedTabs } from './shared-tabs.js';

export interface Parts {
  link: ControllerLink;
  executor: CommandExecutor;
  tabs: SharedTabs;
}

/** Stop: detach first (the gateway fails pending work as cancelled), then drop local work and marks. */
export async function stopSharing(parts: Parts): Promise<void> {
  await parts.link.stop();
  parts.executor.abortAll();
  await parts.tabs.releaseAll();
  await endShare();
}

async function status(parts: Parts): Promise<StatusView> {
  const [gatewayUrl, pairing, pending, share, connection] = await Promise.all([
    readLocal('gateway_url'),
    readLocal('pairing'),
    readLocal('pending_pairing'),
    readLocal('share'),
    readSession('status'),
  ]);
  return {
    gateway_url: gatewayUrl,
    paired: pairing ? { name: pairing.name, grant_id: pairing.grant_id } : null,
    pending_pairing: pending
      ? { code: pending.code, approve_url: pending.approve_url, expires_at: pending.expires_at }
      : null,
    pairing_error: pairingError(),
    share: share
      ? {
          session_id: share.session_id,
          title: share.title,
          tab_ids: share.tab_ids,
          active_tab_id: share.active_tab_id,
        }
      : null,
    connection,
    running_commands: parts.executor.pending,
  };
}

async function handle(parts: Parts, raw: unknown): Promise<unknown> {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success)
    throw new GatewayError('invalid_request', 'The popup sent a request the worker does not know.', 0);
  const request = parsed.data;
  switch (request.type) {
    case 'status':
      return status(parts);
    case 'set-gateway':
      await writeLocal('gateway_url', request.url);
      return status(parts);
    case 'pair':
      await beginPairing(request.open_approval_page);
      return status(parts);
    case 'unpair':
      await stopSharing(parts);
      await forgetPairing();
      return status(parts);
    case 'sessions': {
      const pairing = await readLocal('pairing');
      if (!pairing) throw new GatewayError('not_paired', 'Pair with the gateway first.', 0);
      return listSessions(await readLocal('gateway_url'), pairing.token);
    }
    case 'share': {
      if (!(await readLocal('pairing')))
        throw new GatewayError('not_paired', 'Pair with the gateway first.', 0);
      if (await readLocal('share')) await stopSharing(parts);
      await writeSession('status', { state: 'idle', error: null, attempt: 0 });
      await startShare({ session_id: request.session_id, title: request.title }, request.tab_id);
      await parts.link.ensure('share');
      return status(parts);
    }
    case 'stop':
      await stopSharing(parts);
      return status(parts);
  }
}

/** The onMessage listener: only this extension's own pages may ask. */
export function popupListener(parts: Parts) {
  return (message: unknown, sender: MessageSender, sendResponse: (response: Response) => void): boolean => {
    if (sender.id !== chrome.runtime.id) return false;
    handle(parts, message).then(
      (value) => sendResponse({ ok: true, value }),
      (error: unknown) =>
        sendResponse({
          ok: false,
          error:
            error instanceof GatewayError
              ? { code: error.code, message: error.message }
              : { code: 'extension_error', message: String((error as Error).message ?? error) },
        }),
    );
    return true;
  };
}
