/**
 * Approvals and Stop on the user's tab, for the tabgate extension (docs/safety.md "On the user's tab").
 * The gateway stays the source of truth: the extension, which alone can read the element on the tab,
 * opens an approval here for the command it holds, the record lives in the ApprovalBook (the dashboard
 * and `tabgate approvals` see it too), and the extension learns the outcome by claiming it.
 *
 * The person decides in the extension's popup, and the worker posts that decision. Three things must
 * hold for it to count, so that neither the agent nor a page can approve:
 * - the paired extension's pairing token (the agent's API key gets `operator_required`, 403);
 * - the request comes from the extension's own context: an `Origin` that is an allowed extension
 *   origin (a web page is refused before this by the Origin rule; a non-browser client sends none);
 * - the approval's decision key, which the gateway hands out once, in the answer to the worker that
 *   opened it, and lists nowhere: a pairing token used from outside the extension does not know it.
 *
 * A takeover (browser_request_takeover) is opened by the gateway, not by the extension: the worker,
 * which learns of it by reading this session's approvals, takes its decision key once (`…/take`), so
 * the person's Done or Decline in the popup counts under the same three conditions.
 *
 * Stop and Resume here are the dashboard's (`stopSession`, `resumeSession`): one fail-closed state per
 * session, whichever channel set it.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ACTION_CLASSES, TabgateError, type ApprovalRecord } from '../../../protocol/index.js';
import type { Approvals } from '../../approvals/index.js';
import type { OriginGuard } from '../../guards/origin.js';
import type { Caller, GatewayService } from '../../service.js';
import type { Sessions } from '../../sessions.js';
import { objectBody } from '../body.js';
import type { Route, RouteContext } from '../route-table.js';

export const EXTENSION_APPROVALS_PATH = '/v1/browser-control/sessions/:id/approvals';

/** A crop of the element, JPEG: enough for a person to recognise it, small enough for a request. */
const MAX_CROP_CHARS = 300_000;

const openSchema = z.object({
  tool: z.string().min(1).max(64),
  arguments: z.record(z.string(), z.unknown()),
  ref: z.string().max(64).nullable(),
  frame_origin: z.string().min(1).max(300),
  classes: z.array(z.enum(ACTION_CLASSES)).min(1).max(ACTION_CLASSES.length),
  summary: z.string().min(1).max(500),
  crop: z
    .string()
    .max(MAX_CROP_CHARS)
    .regex(/^data:image\/jpeg;base64,[A-Za-z0-9+/=]*$/)
    .optional(),
});

export interface ExtensionApprovalDeps {
  approvals: Approvals;
  sessions: Sessions;
  service: GatewayService;
  originGuard: OriginGuard;
}

function pairedExtension(ctx: RouteContext): Caller {
  const caller = ctx.caller;
  if (caller?.credential !== 'pairing_token') {
    throw new TabgateError(
      'operator_required',
      "Only the person at the user's browser decides here, in the tabgate extension's popup (or the owner with `tabgate approvals` and the dashboard); the API key is the agent's and cannot.",
    );
  }
  return caller;
}

/** A decision only from the extension's own pages: a request with no Origin is not one. */
function fromExtension(ctx: RouteContext, guard: OriginGuard): void {
  const origin = ctx.req.headers.origin;
  if (origin === undefined || !origin.startsWith('chrome-extension://') || !guard.allows(origin)) {
    throw new TabgateError(
      'operator_required',
      "A decision counts only from the tabgate extension's own popup; this request did not come from it.",
    );
  }
}

function sameKey(given: unknown, kept: string | undefined): boolean {
  if (typeof given !== 'string' || kept === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(kept);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function extensionApprovalRoutes(d: ExtensionApprovalDeps): Route[] {
  /** A session this token may see and that a user's browser serves. */
  const servedSession = async (ctx: RouteContext) => {
    const record = await d.sessions.require(pairedExtension(ctx), ctx.params.id ?? '');
    if (!record.binding) {
      throw new TabgateError(
        'token_scope_forbidden',
        'A paired extension asks for approvals only in a session it serves; share a tab with it first.',
      );
    }
    return record;
  };
  /** An approval of that session; another session's is as unknown as a made-up id. */
  const approvalOf = async (ctx: RouteContext, sessionId: string): Promise<ApprovalRecord> =>
    d.approvals.book.fetch(ctx.params.approval ?? '', sessionId);

  const ownerOf = (caller: Caller): Caller => ({
    principalId: caller.principalId,
    profileId: caller.profileId,
    transportFamily: caller.transportFamily,
    // The person at the paired browser acts as the owner for Stop, as the dashboard does; the audit
    // row names the pairing grant it came through.
    credential: 'operator',
    credentialId: `extension:${caller.credentialId ?? ''}`,
  });

  const decision = (approve: boolean): Route => ({
    method: 'POST',
    path: `${EXTENSION_APPROVALS_PATH}/:approval/${approve ? 'approve' : 'deny'}`,
    auth: 'controller',
    handle: async (ctx) => {
      const caller = pairedExtension(ctx);
      fromExtension(ctx, d.originGuard);
      const session = await servedSession(ctx);
      const record = await approvalOf(ctx, session.session_id);
      const kept = await d.approvals.book.keptKey(record.approval_id);
      if (!sameKey(objectBody(ctx.body).decision_key, kept)) {
        throw new TabgateError(
          'operator_required',
          'This decision does not carry the key the extension was given for the approval; nothing changed.',
        );
      }
      const decided = await d.approvals.decideInExtension(caller, record.approval_id, approve);
      return { status: 200, body: { approval: decided } };
    },
  });

  const takeKey: Route = {
    method: 'POST',
    path: `${EXTENSION_APPROVALS_PATH}/:approval/take`,
    auth: 'controller',
    handle: async (ctx) => {
      pairedExtension(ctx);
      fromExtension(ctx, d.originGuard);
      const session = await servedSession(ctx);
      const record = await approvalOf(ctx, session.session_id);
      if (record.kind !== 'takeover' || record.status !== 'pending')
        throw new TabgateError('approval_not_found', 'No takeover of this session waits for the person.');
      // Once: a pairing token used outside the extension, after the worker took it, gets nothing.
      const key = await d.approvals.book.decisionKey(record.approval_id, true);
      if (key === null)
        throw new TabgateError(
          'operator_required',
          'The key of this takeover was handed to the extension already; decide it in its popup or the dashboard.',
        );
      return { status: 200, body: { approval: record, decision_key: key } };
    },
  };

  const stopOrResume = (stop: boolean): Route => ({
    method: 'POST',
    path: `/v1/browser-control/sessions/:id/${stop ? 'stop' : 'resume'}`,
    auth: 'controller',
    handle: async (ctx) => {
      const caller = pairedExtension(ctx);
      fromExtension(ctx, d.originGuard);
      const session = await servedSession(ctx);
      if (!stop)
        return { status: 200, body: await d.service.resumeSession(ownerOf(caller), session.session_id) };
      // What waited for the person is withdrawn with the Stop: nothing approved later runs it.
      d.approvals.withdrawSession(session.session_id);
      const { session: stopped, cancelled } = await d.service.stopSession(
        ownerOf(caller),
        session.session_id,
      );
      return { status: 200, body: { ...stopped, cancelled_calls: cancelled } };
    },
  });

  return [
    {
      // What the extension enforces and shows: the classes, the pending approvals, whether stopped.
      method: 'GET',
      path: EXTENSION_APPROVALS_PATH,
      auth: 'controller',
      // The extension reads it every 1.5 s while a tab is shared (a takeover may start any moment).
      quietLog: true,
      handle: async (ctx) => {
        const session = await d.sessions.require(pairedExtension(ctx), ctx.params.id ?? '');
        const policy = d.approvals.policyFor('user_tab');
        const pending = d.approvals.book
          .list(true)
          .filter((r) => r.session_id === session.session_id)
          .map((r) => ({ ...r, crop: d.approvals.book.cropOf(r.approval_id) }));
        return {
          status: 200,
          body: {
            session_id: session.session_id,
            stopped: session.stopped_at !== null,
            policy: {
              classes: policy.classes,
              lexicon: policy.lexicon,
              per_action_origins: policy.perActionOrigins,
            },
            approvals: pending,
          },
        };
      },
    },
    {
      method: 'POST',
      path: EXTENSION_APPROVALS_PATH,
      auth: 'controller',
      handle: async (ctx) => {
        const session = await servedSession(ctx);
        const parsed = openSchema.safeParse(objectBody(ctx.body));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new TabgateError(
            'invalid_request',
            `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
          );
        }
        if (session.stopped_at !== null)
          throw new TabgateError('session_stopped_by_owner', 'The session is stopped; nothing is asked.');
        const body = parsed.data;
        const record = d.approvals.openForUserTab(session.session_id, body.tool, body.arguments, {
          ref: body.ref,
          frameOrigin: body.frame_origin,
          classes: body.classes,
          summary: body.summary,
        });
        const key = await d.approvals.book.decisionKey(record.approval_id);
        if (body.crop) d.approvals.book.keepCrop(record.approval_id, body.crop);
        return { status: 201, body: { approval: record, decision_key: key } };
      },
    },
    {
      // Waits for the decision; an approved approval is used by this claim, so it runs one action once.
      method: 'POST',
      path: `${EXTENSION_APPROVALS_PATH}/:approval/claim`,
      auth: 'controller',
      handle: async (ctx) => {
        const session = await servedSession(ctx);
        const id = (await approvalOf(ctx, session.session_id)).approval_id;
        let onGone: (() => void) | undefined;
        const gone = new Promise<'gone'>((resolve) => {
          onGone = () => resolve('gone');
          ctx.signal.addEventListener('abort', onGone);
        });
        try {
          const outcome = await Promise.race([d.approvals.book.wait(id), gone]);
          if (outcome === 'gone') {
            // The extension stopped waiting (its command was cancelled): nothing may use it later.
            d.approvals.book.withdraw(id);
            return { status: 200, body: { outcome: 'expired' } };
          }
          if (outcome !== 'approved') return { status: 200, body: { outcome } };
          return { status: 200, body: { outcome: (await d.approvals.book.use(id)) ? 'approved' : 'used' } };
        } finally {
          if (onGone) ctx.signal.removeEventListener('abort', onGone);
        }
      },
    },
    {
      method: 'POST',
      path: `${EXTENSION_APPROVALS_PATH}/:approval/withdraw`,
      auth: 'controller',
      handle: async (ctx) => {
        const session = await servedSession(ctx);
        const record = await approvalOf(ctx, session.session_id);
        d.approvals.book.withdraw(record.approval_id);
        return { status: 200, body: { approval: d.approvals.book.get(record.approval_id) } };
      },
    },
    decision(true),
    decision(false),
    takeKey,
    stopOrResume(true),
    stopOrResume(false),
  ];
}
