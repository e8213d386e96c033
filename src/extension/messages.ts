/**
 * What the popup asks the service worker, and what it gets back. Both sides import this file; the
 * worker validates every request with these schemas before acting on it.
 */
import { z } from 'zod';
import { parseGatewayAddress } from './gateway-address.js';

const gatewayUrl = z.string().refine((text) => parseGatewayAddress(text).ok, {
  message: 'expected the address of the gateway on this computer, like http://127.0.0.1:8642',
});

export const requestSchema = z.discriminatedUnion('type', [
  // `probe`: ask the gateway too (is the pairing still good, is extension control on); the popup does.
  z.object({ type: z.literal('status'), probe: z.boolean().default(false) }),
  z.object({ type: z.literal('set-gateway'), url: gatewayUrl }),
  // `gateway_url`: the address the person typed, saved and used from now on; checked before anything.
  z.object({
    type: z.literal('pair'),
    gateway_url: z.string().max(2048).optional(),
    open_approval_page: z.boolean().default(true),
  }),
  z.object({ type: z.literal('cancel-pairing') }),
  z.object({ type: z.literal('unpair') }),
  z.object({ type: z.literal('sessions') }),
  z.object({
    type: z.literal('share'),
    session_id: z.string().min(1).max(256),
    title: z.string().max(512).nullable(),
    tab_id: z.number().int().min(0),
  }),
  z.object({ type: z.literal('stop') }),
  // The shared session's sites, and the person's decision on one of them (never the agent's).
  z.object({ type: z.literal('sites') }),
  // Approvals the session waits for on this tab, and the person's decision on one (popup only).
  z.object({ type: z.literal('approvals') }),
  z.object({
    type: z.literal('decide-approval'),
    approval_id: z.string().min(1).max(100),
    approve: z.boolean(),
  }),
  // Stop the agent (cancel what runs, refuse what comes, debugger off) and Resume; the share stays.
  z.object({ type: z.literal('stop-agent') }),
  z.object({ type: z.literal('resume-agent') }),
  z.object({
    type: z.literal('decide-site'),
    decision: z.enum(['grant', 'deny', 'revoke']),
    site: z.string().min(1).max(300),
  }),
]);

export type PopupRequest = z.input<typeof requestSchema>;

/**
 * What the person must be able to tell apart, decided by the worker in one place: the popup shows each
 * with its own words and only the buttons that make sense there.
 */
export type Phase = 'unpaired' | 'pairing' | 'revoked' | 'feature_off' | 'unreachable' | 'paired' | 'sharing';

export interface StatusView {
  phase: Phase;
  gateway_url: string;
  paired: { name: string; grant_id: string } | null;
  pending_pairing: { code: string; approve_url: string; expires_at: number } | null;
  /** Why the last pairing attempt ended without a token (denied, expired); cleared by Pair or Cancel. */
  pairing_error: { code: string; message: string } | null;
  share: { session_id: string; title: string | null; tab_ids: number[]; active_tab_id: number } | null;
  connection: { state: string; error: { code: string; message: string } | null; attempt: number };
  running_commands: number;
}

export type Response<T = unknown> =
  { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** The shared session's sites as the popup lists them. */
export interface SitesView {
  /** False until the gateway answered once for this session. */
  loaded: boolean;
  mode: string | null;
  granted: string[];
  /** Asked for by the session and not decided yet: each with Grant and Deny. */
  requested: string[];
}

/** An approval the popup shows: the origin, the element, the action in words and a crop. */
export interface ApprovalView {
  approval_id: string;
  /** `takeover`: the agent asks the person to do a step themselves; `summary` is its reason. */
  kind: 'action' | 'takeover';
  tool: string;
  frame_origin: string;
  classes: string[];
  summary: string;
  expires_at: string;
  crop: string | null;
  /** False when another browser (or an earlier life of this worker) asked: it cannot be decided here. */
  decidable: boolean;
}

export interface ApprovalsView {
  stopped: boolean;
  approvals: ApprovalView[];
}
