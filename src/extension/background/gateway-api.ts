/**
 * The extension's HTTP calls to the gateway, all on loopback. The pairing token travels only in the
 * Authorization header and the ticket only in the WebSocket subprotocol: no secret is ever put in a URL.
 */
import {
  CAPABILITIES_PATH,
  CONTROLLER_CAPABILITIES,
  EXTENDED_CONTROLLER_CAPABILITIES,
  PROTOCOL_VERSION,
  REGISTER_PATH,
  type ControllerCapability,
  type SitePolicy,
} from '../../protocol/index.js';

/** A refusal from the gateway, with its stable code; `network` when it could not be reached at all. */
export class GatewayError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

async function call(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  } catch {
    throw new GatewayError('network', `The tabgate gateway at ${new URL(url).origin} is not reachable.`, 0);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    throw new GatewayError(
      typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      typeof error?.message === 'string' ? error.message : `The gateway answered ${response.status}.`,
      response.status,
    );
  }
  return { status: response.status, body };
}

const json = (body: unknown, token?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

export interface PairStart {
  pairing_id: string;
  code: string;
  expires_in_seconds: number;
  approve_url: string;
}

export async function startPairing(base: string, name: string): Promise<PairStart> {
  return (await call(`${base}/v1/browser-control/pair`, json({ name }))).body as PairStart;
}

export type PairPoll =
  | { status: 'pending'; expires_in_seconds: number }
  | { status: 'approved'; token: string; grant_id: string; name: string };

export async function pollPairing(base: string, pairingId: string): Promise<PairPoll> {
  return (await call(`${base}/v1/browser-control/pair/${encodeURIComponent(pairingId)}/token`, json({})))
    .body as PairPoll;
}

/** Cancel: the gateway forgets the request, so approving its code later pairs nothing anywhere. */
export async function withdrawPairing(base: string, pairingId: string): Promise<void> {
  await call(`${base}/v1/browser-control/pair/${encodeURIComponent(pairingId)}`, { method: 'DELETE' });
}

/** Unpair: this browser's grant is revoked on the gateway too, not only forgotten here. */
export async function revokeOwnPairing(base: string, token: string): Promise<void> {
  await call(`${base}/v1/browser-control/pairing`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
}

export interface SessionSummary {
  session_id: string;
  title: string | null;
  created_at: string;
  source: string;
}

export async function listSessions(base: string, token: string): Promise<SessionSummary[]> {
  const { body } = await call(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
  return ((body as { sessions?: SessionSummary[] }).sessions ?? []).slice(0, 200);
}

/** Whether extension control is on, asked with the pairing token (a refused token throws 401). */
export async function extensionControlEnabled(base: string, token: string): Promise<boolean> {
  const { body } = await call(base + CAPABILITIES_PATH, { headers: { authorization: `Bearer ${token}` } });
  const features = (body as { features?: { browser_extension_control?: { enabled?: unknown } } } | null)
    ?.features;
  return features?.browser_extension_control?.enabled === true;
}

export interface Registration {
  ticket: string;
  ws_path: string;
  scope: { capabilities: ControllerCapability[] };
}

/** The registration codes after which retrying cannot help: the user or the gateway must change something. */
export const FATAL_REGISTRATION_CODES = new Set([
  'browser_control_disabled',
  'browser_control_auth_required',
  'browser_control_session_forbidden',
  'browser_control_invalid_registration',
  'browser_control_no_capabilities',
  'browser_control_protocol_unsupported',
  'browser_control_developer_mode_required',
  // A revoked or unknown token, or one used beyond its scope: only pairing again helps.
  'invalid_api_key',
  'token_scope_forbidden',
]);

export async function register(
  base: string,
  token: string,
  ids: { session_id: string; controller_id: string; browser_profile_id: string; version: string },
): Promise<Registration> {
  // The reference protocol's set, then tabgate's additions by name: a gateway that does not know them
  // drops them, and this extension then simply is not asked to run them.
  const capabilities = [
    'controller.noop',
    ...CONTROLLER_CAPABILITIES.filter((c) => c !== 'controller.noop'),
    ...EXTENDED_CONTROLLER_CAPABILITIES,
  ];
  const { body } = await call(
    base + REGISTER_PATH,
    json(
      {
        protocol_version: PROTOCOL_VERSION,
        session_id: ids.session_id,
        controller_id: ids.controller_id,
        browser_profile_id: ids.browser_profile_id,
        capabilities,
        product: { id: 'tabgate-extension', engine: 'chromium', label: `tabgate extension ${ids.version}` },
      },
      token,
    ),
  );
  return body as Registration;
}

/** What the gateway holds for a session on the user's tab: the policy to enforce, and what to list. */
export interface SessionSites {
  policy: SitePolicy;
  sites: { granted: string[]; requested: string[]; mode: string; allow: string[]; deny: string[] };
}

const sitesPath = (sessionId: string) =>
  `/v1/browser-control/sessions/${encodeURIComponent(sessionId)}/sites`;

/** The site policy of a session the extension serves, read with its own pairing token. */
export async function fetchSessionSites(
  base: string,
  token: string,
  sessionId: string,
): Promise<SessionSites> {
  const { body } = await call(base + sitesPath(sessionId), { headers: { authorization: `Bearer ${token}` } });
  return body as SessionSites;
}

/** The person's decision in the popup: grant or deny a site the session asked for, revoke a grant. */
export async function decideSite(
  base: string,
  token: string,
  sessionId: string,
  decision: 'grant' | 'deny' | 'revoke',
  site: string,
): Promise<SessionSites> {
  return (await call(`${base}${sitesPath(sessionId)}/${decision}`, json({ site }, token)))
    .body as SessionSites;
}

/** A pending approval as the gateway lists it for the popup, with the crop the extension sent. */
export interface PendingApproval {
  approval_id: string;
  /** `takeover`: the person is asked to do a step themselves (the summary is the agent's reason). */
  kind?: 'action' | 'takeover';
  tool: string;
  ref: string | null;
  frame_origin: string;
  classes: string[];
  summary: string;
  expires_at: string;
  crop: string | null;
}

export interface SessionApprovals {
  stopped: boolean;
  policy: { classes: string[]; lexicon: string[]; per_action_origins: string[] };
  approvals: PendingApproval[];
}

const approvalsPath = (sessionId: string) =>
  `/v1/browser-control/sessions/${encodeURIComponent(sessionId)}/approvals`;

/** The user's-tab approval policy, the approvals waiting and whether the session is stopped. */
export async function fetchSessionApprovals(
  base: string,
  token: string,
  sessionId: string,
): Promise<SessionApprovals> {
  const { body } = await call(base + approvalsPath(sessionId), {
    headers: { authorization: `Bearer ${token}` },
  });
  return body as SessionApprovals;
}

export interface OpenApproval {
  tool: string;
  arguments: Record<string, unknown>;
  ref: string | null;
  frame_origin: string;
  classes: string[];
  summary: string;
  crop?: string;
}

/** Opens an approval in the gateway's book; the decision key comes back only here, to this worker. */
export async function openApproval(
  base: string,
  token: string,
  sessionId: string,
  ask: OpenApproval,
): Promise<{ approval: { approval_id: string; expires_at: string; status: string }; decision_key: string }> {
  return (await call(base + approvalsPath(sessionId), json(ask, token))).body as {
    approval: { approval_id: string; expires_at: string; status: string };
    decision_key: string;
  };
}

export type ClaimOutcome = 'approved' | 'denied' | 'expired' | 'used';

/** Waits for the decision; an approved approval is used by this claim. */
export async function claimApproval(
  base: string,
  token: string,
  sessionId: string,
  approvalId: string,
  signal: AbortSignal,
): Promise<ClaimOutcome> {
  const path = `${approvalsPath(sessionId)}/${encodeURIComponent(approvalId)}/claim`;
  const { body } = await call(base + path, { ...json({}, token), signal });
  return (body as { outcome: ClaimOutcome }).outcome;
}

export async function withdrawApproval(
  base: string,
  token: string,
  sessionId: string,
  approvalId: string,
): Promise<void> {
  await call(
    `${base}${approvalsPath(sessionId)}/${encodeURIComponent(approvalId)}/withdraw`,
    json({}, token),
  );
}

/** Takes the decision key of a takeover the gateway opened; handed out once, to this worker. */
export async function takeTakeover(
  base: string,
  token: string,
  sessionId: string,
  approvalId: string,
): Promise<string> {
  const path = `${approvalsPath(sessionId)}/${encodeURIComponent(approvalId)}/take`;
  return ((await call(base + path, json({}, token))).body as { decision_key: string }).decision_key;
}

/** The person's decision from the popup, with the key only this worker was given. */
export async function decideApproval(
  base: string,
  token: string,
  sessionId: string,
  approvalId: string,
  approve: boolean,
  decisionKey: string,
): Promise<void> {
  const path = `${approvalsPath(sessionId)}/${encodeURIComponent(approvalId)}/${approve ? 'approve' : 'deny'}`;
  await call(base + path, json({ decision_key: decisionKey }, token));
}

/** Stop or Resume of the session in the gateway: the same state the dashboard's Stop sets. */
export async function setSessionStopped(
  base: string,
  token: string,
  sessionId: string,
  stop: boolean,
): Promise<void> {
  const path = `/v1/browser-control/sessions/${encodeURIComponent(sessionId)}/${stop ? 'stop' : 'resume'}`;
  await call(base + path, json({}, token));
}
