/** The worker's side of the popup's requests: validated, then run against the durable state. */
import { chrome, type MessageSender } from '../chrome-api.js';
import { parseGatewayAddress } from '../gateway-address.js';
import {
  requestSchema,
  type ApprovalsView,
  type Phase,
  type Response,
  type SitesView,
  type StatusView,
} from '../messages.js';
import type { ControllerLink } from './controller-link.js';
import {
  readLocal,
  readSession,
  writeLocal,
  writeSession,
  type GatewayCheck,
  type StoredSitePolicy,
} from './durable-state.js';
import { parseSiteUrl } from '../../protocol/index.js';
import { CommandError } from './command-error.js';
import type { CommandExecutor } from './executor.js';
import {
  decideSite,
  extensionControlEnabled,
  GatewayError,
  listSessions,
  setSessionStopped,
} from './gateway-api.js';
import { beginPairing, cancelPairing, forgetPairing, pairingRevoked } from './pairing-flow.js';
import { endShare, startShare } from './share.js';
import type { SharedTabs } from './shared-tabs.js';
import { keepSessionSites, loadSessionSites, type SiteGuard } from './site-guard.js';
import { fromPopup, type TabApprovals } from './tab-approvals.js';

export interface Parts {
  link: ControllerLink;
  executor: CommandExecutor;
  tabs: SharedTabs;
  sites: SiteGuard;
  approvals: TabApprovals;
}

export const REVOKED_MESSAGE = "This browser's pairing was revoked — Pair again.";

/** Stop: detach first (the gateway fails pending work as cancelled), then drop local work and marks. */
export async function stopSharing(parts: Parts): Promise<void> {
  await parts.link.stop();
  parts.executor.abortAll();
  await parts.tabs.releaseAll();
  await parts.sites.clear();
  await endShare();
}

function sitesView(stored: StoredSitePolicy | null, sessionId: string): SitesView {
  if (stored?.session_id !== sessionId) return { loaded: false, mode: null, granted: [], requested: [] };
  return { loaded: true, mode: stored.policy.mode, granted: stored.granted, requested: stored.requested };
}

/** The sites of the shared session, asked afresh; what was last read when the gateway cannot answer. */
async function sharedSites(): Promise<SitesView & { shared_origin: string | null }> {
  const share = await readLocal('share');
  if (!share) throw new GatewayError('not_sharing', 'No tab is shared.', 0);
  let stored: StoredSitePolicy | null;
  try {
    stored = await loadSessionSites(share.session_id);
  } catch {
    stored = await readSession('site_policy');
  }
  return { ...sitesView(stored, share.session_id), shared_origin: share.shared_origin ?? null };
}

/**
 * What a refusal from the gateway means for this browser, wherever it came from (registration, the
 * popup's probe, the session list). A 401 to the pairing token this browser held: the pairing is gone,
 * and so is the share it carried. Extension control off: no tab stays marked as shared. Returns whether
 * the refusal was one of these.
 */
export async function gatewayRefused(parts: Parts, error: GatewayError): Promise<boolean> {
  if (error.status === 401 && (await readLocal('pairing'))) {
    await stopSharing(parts);
    await pairingRevoked();
    await writeSession('status', {
      state: 'stopped',
      error: { code: error.code, message: REVOKED_MESSAGE },
      attempt: 0,
    });
    return true;
  }
  if (error.code === 'browser_control_disabled') {
    await featureOff(parts);
    return true;
  }
  return false;
}

async function featureOff(parts: Parts): Promise<void> {
  await writeSession('gateway_check', 'feature_off');
  if (await readLocal('share')) await stopSharing(parts);
}

/** Asks the gateway whether the pairing still holds and extension control is on; remembers the answer. */
async function probe(parts: Parts): Promise<void> {
  const [pairing, base] = await Promise.all([readLocal('pairing'), readLocal('gateway_url')]);
  if (!pairing) return;
  let check: GatewayCheck;
  try {
    check = (await extensionControlEnabled(base, pairing.token)) ? 'ok' : 'feature_off';
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    if (await gatewayRefused(parts, error)) return;
    check = error.code === 'network' ? 'unreachable' : 'unknown';
  }
  if (check === 'feature_off') await featureOff(parts);
  else await writeSession('gateway_check', check);
}

function phaseOf(view: Omit<StatusView, 'phase'>, revoked: boolean, check: GatewayCheck): Phase {
  if (view.pending_pairing) return 'pairing';
  if (!view.paired) return revoked ? 'revoked' : 'unpaired';
  if (check === 'feature_off') return 'feature_off';
  if (view.share) return 'sharing';
  return check === 'unreachable' ? 'unreachable' : 'paired';
}

async function status(parts: Parts): Promise<StatusView> {
  const [gatewayUrl, pairing, pending, share, revoked, connection, pairingError, check] = await Promise.all([
    readLocal('gateway_url'),
    readLocal('pairing'),
    readLocal('pending_pairing'),
    readLocal('share'),
    readLocal('revoked'),
    readSession('status'),
    readSession('pairing_error'),
    readSession('gateway_check'),
  ]);
  const view: Omit<StatusView, 'phase'> = {
    gateway_url: gatewayUrl,
    paired: pairing ? { name: pairing.name, grant_id: pairing.grant_id } : null,
    pending_pairing: pending
      ? { code: pending.code, approve_url: pending.approve_url, expires_at: pending.expires_at }
      : null,
    pairing_error: pairingError,
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
  return { phase: phaseOf(view, revoked, check), ...view };
}

/** A call made with the pairing token: a refusal that ends the pairing or the feature is acted on first. */
async function withPairing<T>(parts: Parts, run: (base: string, token: string) => Promise<T>): Promise<T> {
  const pairing = await readLocal('pairing');
  if (!pairing) throw new GatewayError('not_paired', 'Pair with the gateway first.', 0);
  try {
    return await run(await readLocal('gateway_url'), pairing.token);
  } catch (error) {
    if (error instanceof GatewayError) await gatewayRefused(parts, error);
    throw error;
  }
}

/** The approvals the shared session waits for, as the gateway holds them, and whether it is stopped. */
async function sharedApprovals(parts: Parts): Promise<ApprovalsView> {
  const share = await readLocal('share');
  if (!share) throw new GatewayError('not_sharing', 'No tab is shared.', 0);
  const state = await withPairing(parts, () => parts.approvals.read(share.session_id));
  return {
    stopped: state.stopped,
    approvals: state.approvals.map((a) => ({
      approval_id: a.approval_id,
      kind: a.kind ?? 'action',
      tool: a.tool,
      frame_origin: a.frame_origin,
      classes: a.classes,
      summary: a.summary,
      expires_at: a.expires_at,
      crop: a.crop,
      decidable: parts.approvals.waits(a.approval_id),
    })),
  };
}

/**
 * Stop: the agent's calls end now and later ones are refused until Resume, in the gateway (the
 * dashboard's Stop state) and here; the debugger leaves the tab at once. The share itself stays, so
 * the session never falls back to another browser.
 */
async function stopAgent(parts: Parts): Promise<ApprovalsView> {
  const share = await readLocal('share');
  if (!share) throw new GatewayError('not_sharing', 'No tab is shared.', 0);
  const local = (async () => {
    parts.executor.cancelAll();
    await parts.tabs.stop();
  })();
  await Promise.all([
    local,
    withPairing(parts, (base, token) => setSessionStopped(base, token, share.session_id, true)),
  ]);
  return sharedApprovals(parts);
}

/** What only the person at the popup may do: decide an approval, stop or resume the agent. */
const POPUP_ONLY = new Set(['decide-approval', 'stop-agent', 'resume-agent']);

async function handle(parts: Parts, raw: unknown, sender: MessageSender): Promise<unknown> {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success)
    throw new GatewayError('invalid_request', 'The popup sent a request the worker does not know.', 0);
  const request = parsed.data;
  if (POPUP_ONLY.has(request.type) && !fromPopup(sender))
    throw new GatewayError('forbidden_sender', "Only the extension's own popup may do this.", 0);
  switch (request.type) {
    case 'status':
      if (request.probe) await probe(parts);
      return status(parts);
    case 'set-gateway': {
      const address = parseGatewayAddress(request.url);
      if (address.ok) await writeLocal('gateway_url', address.url);
      return status(parts);
    }
    case 'pair':
      await beginPairing(request.gateway_url, request.open_approval_page);
      return status(parts);
    case 'cancel-pairing':
      await cancelPairing();
      return status(parts);
    case 'unpair':
      await stopSharing(parts);
      await forgetPairing();
      return status(parts);
    case 'sessions':
      return withPairing(parts, listSessions);
    case 'share': {
      if (!(await readLocal('pairing')))
        throw new GatewayError('not_paired', 'Pair with the gateway first.', 0);
      if (await readLocal('share')) await stopSharing(parts);
      // With no share, an attempt may still be under way (the wake alarm's, which read no share): the new
      // share must start its own rather than wait on that one.
      else await parts.link.stop();
      // A new share starts unstopped here; the gateway keeps a stopped session's own state.
      parts.tabs.resume();
      await writeSession('status', { state: 'idle', error: null, attempt: 0 });
      const shown = await chrome.tabs.get(request.tab_id).catch(() => null);
      const site = parseSiteUrl(shown?.url ?? '');
      await startShare(
        { session_id: request.session_id, title: request.title },
        request.tab_id,
        site.ok ? site.site.origin : null,
      );
      await parts.link.ensure('share');
      // Until the policy is read, the shared tab may stay on its own origin and go nowhere else; every
      // command reads it anyway, so the share does not wait for it.
      void loadSessionSites(request.session_id).catch(() => undefined);
      return status(parts);
    }
    case 'sites':
      return sharedSites();
    case 'decide-site': {
      const share = await readLocal('share');
      if (!share) throw new GatewayError('not_sharing', 'No tab is shared.', 0);
      const answer = await withPairing(parts, (base, token) =>
        decideSite(base, token, share.session_id, request.decision, request.site),
      );
      await keepSessionSites(share.session_id, answer);
      return sharedSites();
    }
    case 'stop':
      await stopSharing(parts);
      return status(parts);
    case 'approvals':
      return sharedApprovals(parts);
    case 'decide-approval':
      await withPairing(parts, () => parts.approvals.decide(request.approval_id, request.approve));
      return sharedApprovals(parts);
    case 'stop-agent':
      return stopAgent(parts);
    case 'resume-agent': {
      const share = await readLocal('share');
      if (!share) throw new GatewayError('not_sharing', 'No tab is shared.', 0);
      await withPairing(parts, (base, token) => setSessionStopped(base, token, share.session_id, false));
      parts.tabs.resume();
      return sharedApprovals(parts);
    }
  }
}

/** The onMessage listener: only this extension's own pages may ask. */
export function popupListener(parts: Parts) {
  return (message: unknown, sender: MessageSender, sendResponse: (response: Response) => void): boolean => {
    if (sender.id !== chrome.runtime.id) return false;
    handle(parts, message, sender).then(
      (value) => sendResponse({ ok: true, value }),
      (error: unknown) =>
        sendResponse({
          ok: false,
          error:
            error instanceof GatewayError
              ? { code: error.code, message: error.message }
              : error instanceof CommandError
                ? { code: error.code, message: error.message }
                : { code: 'extension_error', message: String((error as Error).message ?? error) },
        }),
    );
    return true;
  };
}
