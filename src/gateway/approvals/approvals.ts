/**
 * Approvals of consequential actions, the gateway's side (docs/safety.md "Approvals"): the policy each
 * kind of browser is held to, the gate one call's engine asks before a consequential input, the user's
 * tab refused where no channel can ask the person yet, and the owner's decisions, each in the audit log.
 */
import { createHash } from 'node:crypto';
import {
  TabgateError,
  type ActionClass,
  type ApprovalAsk,
  type ApprovalChannel,
  type ApprovalPolicy,
  type ApprovalRecord,
  PAGE_INPUT_TOOLS,
} from '../../protocol/index.js';
import type { ActionGate } from '../../engine/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ApprovalWaits } from '../broker/controller-broker.js';
import type { Clock } from '../clock.js';
import type { SafetyConfig } from '../config/safety-schema.js';
import type { Logger } from '../../log/logger.js';
import { operatorRequired } from '../operator/index.js';
import type { CallSignal, Caller } from '../service.js';
import { ApprovalBook, type ApprovalBinding } from './approval-book.js';
import { awaitDecision } from './decision-wait.js';
import { Takeovers } from './takeovers.js';

/** Which browser a session's calls run on, for the classes it is held to. */
export type ApprovalBrowser = 'user_tab' | 'local' | 'remote';

export interface GatedCall {
  sessionId: string;
  tool: string;
  /** The validated arguments, `wait` left out: what the approval binds by hash. */
  args: unknown;
  /** False: answer at once with `approval_required` instead of waiting for the decision. */
  wait: boolean;
  signal?: CallSignal;
  /** Told while the call waits (MCP progress notifications). */
  onProgress?: (message: string) => void;
}

export interface ApprovalsOptions {
  safety: SafetyConfig;
  clock: Clock;
  log: Logger;
  audit?: AuditLog;
  /** How often a waiting call is told it still waits. */
  progressEveryMs?: number;
  /** Told when the extension asks for an approval: the command that waits for it keeps waiting. */
  waits?: ApprovalWaits;
  /** The book, when not this gateway's own in memory: a cluster's, shared with every node. */
  book?: ApprovalBook;
}

/** Sorted keys, so the same arguments hash the same however they were written. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function argumentHash(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(`${tool}\n${canonical(args)}`)
    .digest('hex');
}

/** The tools whose input may need approval on the user's tab, where the gateway cannot read the page. */
const USER_TAB_INPUTS: ReadonlySet<string> = new Set(PAGE_INPUT_TOOLS);

export class Approvals {
  readonly book: ApprovalBook;
  /** Steps the person does themselves (browser_request_takeover), records of this same book. */
  readonly takeovers: Takeovers;
  /** The origins each session has typed a vault secret on. */
  private readonly secretOrigins = new Map<string, Set<string>>();
  private readonly policies: Record<ApprovalBrowser, ApprovalPolicy>;

  constructor(private readonly o: ApprovalsOptions) {
    this.book = o.book ?? new ApprovalBook(o.clock, o.safety.approval_timeout_s * 1000);
    this.takeovers = new Takeovers(this.book, {
      timeoutS: o.safety.takeover_timeout_s,
      log: o.log,
      ...(o.progressEveryMs ? { progressEveryMs: o.progressEveryMs } : {}),
    });
    const { approvals } = o.safety;
    const policy = (classes: readonly ActionClass[]): ApprovalPolicy => ({
      // Listing an origin as per-action is itself the owner's request: it holds on every browser.
      classes:
        approvals.per_action_origins.length > 0 && !classes.includes('per_action_origin')
          ? [...classes, 'per_action_origin']
          : [...classes],
      lexicon: approvals.lexicon,
      perActionOrigins: approvals.per_action_origins,
    });
    this.policies = {
      user_tab: policy(approvals.user_tab),
      local: policy(approvals.local),
      remote: policy(approvals.remote),
    };
  }

  policyFor(browser: ApprovalBrowser): ApprovalPolicy {
    return this.policies[browser];
  }

  /** The gate of one call on a CDP browser; none when no class is on for it. */
  gateFor(call: GatedCall, browser: ApprovalBrowser): ActionGate | undefined {
    const policy = this.policies[browser];
    if (policy.classes.length === 0) return undefined;
    const argumentHashOf = argumentHash(call.tool, call.args);
    let approvedInCall = false;
    const origins = () => {
      let set = this.secretOrigins.get(call.sessionId);
      if (!set) this.secretOrigins.set(call.sessionId, (set = new Set()));
      return set;
    };
    return {
      policy,
      firstSecretUse: (origin) => !this.secretOrigins.get(call.sessionId)?.has(origin),
      secretUsed: (origin) => void origins().add(origin),
      ask: async (ask) => {
        // One approval lets one call do what it asked for, requests it sets off included.
        if (approvedInCall) return;
        const binding: ApprovalBinding = {
          sessionId: call.sessionId,
          tool: call.tool,
          argumentHash: argumentHashOf,
          ref: ask.ref,
          frameOrigin: ask.frameOrigin,
        };
        const approved = this.book.find(binding, 'approved');
        if (approved && (await this.book.use(approved.approval_id))) {
          approvedInCall = true;
          return;
        }
        await this.waitForDecision(call, binding, ask);
        approvedInCall = true;
      },
    };
  }

  private async waitForDecision(call: GatedCall, binding: ApprovalBinding, ask: ApprovalAsk): Promise<void> {
    const record = this.book.find(binding, 'pending') ?? this.book.open(binding, ask);
    const id = record.approval_id;
    if (!call.wait) {
      throw new TabgateError(
        'approval_required',
        `Nothing was done: ${record.summary} needs the owner's approval (approval ${id}, until ${record.expires_at}).`,
        { approval_id: id, summary: record.summary, classes: record.classes, expires_at: record.expires_at },
      );
    }
    this.o.log.info('action waits for approval', {
      session_id: call.sessionId,
      approval_id: id,
      tool: call.tool,
      classes: record.classes.join(','),
    });
    const outcome = await awaitDecision(this.book, id, {
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      waiting: `Waiting for the owner to approve: ${record.summary} (approval ${id}).`,
      what: `approval ${id}`,
      ...(this.o.progressEveryMs !== undefined ? { progressEveryMs: this.o.progressEveryMs } : {}),
    });
    if (outcome === 'denied')
      throw new TabgateError('approval_denied', `The owner denied ${record.summary}; nothing was done.`, {
        approval_id: id,
      });
    if (outcome === 'expired')
      throw new TabgateError(
        'approval_timeout',
        `Nobody approved ${record.summary} within ${this.o.safety.approval_timeout_s} s; nothing was done.`,
        { approval_id: id },
      );
    if (!(await this.book.use(id)))
      throw new TabgateError('approval_already_decided', `Approval ${id} was used by another call.`);
  }

  /**
   * The user's tab. The owner's paired tabgate extension (`asksInBrowser`) judges the element on the tab
   * itself and asks the person in its popup (extension-approvals.ts): nothing to refuse here. A
   * controller without that channel (one the API key registered) cannot ask anybody, so a call the
   * gateway can tell needs approval is refused (`approval_unavailable`), never performed unapproved.
   */
  checkUserTab(tool: string, args: Record<string, unknown>, asksInBrowser = false): void {
    if (asksInBrowser) return;
    const policy = this.policies.user_tab;
    const on = (cls: ActionClass) => policy.classes.includes(cls);
    const refuse = (why: string) => {
      throw new TabgateError(
        'approval_unavailable',
        `${tool} on the user's tab ${why}, and the tabgate extension cannot ask the person for approval yet; nothing was done.`,
      );
    };
    if (tool === 'browser_upload' && on('upload'))
      refuse('uploads files (an action class that needs approval)');
    if (tool === 'browser_dialog' && args.action === 'accept' && on('dialog_accept'))
      refuse('accepts a dialog (an action class that needs approval); dismiss it, or ask the person');
    if (tool === 'browser_type' && typeof args.secret === 'string' && on('secret_first_use'))
      refuse('types a vault secret, which needs approval the first time on each origin');
    if (USER_TAB_INPUTS.has(tool) && policy.perActionOrigins.length > 0 && on('per_action_origin'))
      refuse('may act on an origin where every action needs approval (safety.approvals.per_action_origins)');
  }

  /**
   * An approval the extension asks for on the user's tab, for a session its token serves: bound like
   * any other, so the owner's channels (dashboard, CLI) list it too. An identical one still pending is
   * joined rather than asked twice.
   */
  openForUserTab(sessionId: string, tool: string, args: unknown, ask: ApprovalAsk): ApprovalRecord {
    const binding: ApprovalBinding = {
      sessionId,
      tool,
      argumentHash: argumentHash(tool, args),
      ref: ask.ref,
      frameOrigin: ask.frameOrigin,
    };
    // The same call again after an approval the agent did not wait for (wait:false): the extension's
    // claim uses the approved one at once.
    const approved = this.book.find(binding, 'approved');
    if (approved) return approved;
    const record = this.book.find(binding, 'pending') ?? this.book.open(binding, ask);
    this.o.log.info('action on the user tab waits for approval', {
      session_id: sessionId,
      approval_id: record.approval_id,
      tool,
      classes: record.classes.join(','),
    });
    this.o.waits?.awaitingApproval(sessionId, tool, record.approval_id, Date.parse(record.expires_at));
    return record;
  }

  /**
   * How long a command for the paired extension may wait for the person as well as act: the approval
   * timeout for a tool the extension may hold (with a class on), else nothing.
   */
  userTabWindowMs(tool: string): number | undefined {
    const mayHold =
      USER_TAB_INPUTS.has(tool) ||
      tool === 'browser_dialog' ||
      tool === 'browser_upload' ||
      // A navigation to a file is a download the person may be asked about, as a click's is.
      (tool === 'browser_navigate' && this.policies.user_tab.classes.includes('download'));
    return mayHold && this.policies.user_tab.classes.length > 0
      ? this.o.safety.approval_timeout_s * 1000
      : undefined;
  }

  /**
   * The person's decision in the extension's popup, under the pairing token of the browser the owner
   * paired: audited like the owner's, with channel `extension`. The route has checked that the request
   * came from the extension itself and names an approval of a session this token serves.
   */
  decideInExtension(caller: Caller, id: string, approve: boolean): Promise<ApprovalRecord> {
    if (caller.credential !== 'pairing_token') throw operatorRequired();
    return this.audited(caller, id, approve, 'extension');
  }

  /** An agent's follow-up on an approval of its own session. */
  status(sessionId: string, id: string): ApprovalRecord {
    return this.book.get(id, sessionId);
  }

  /** The owner's decision, audited with who decided, through which channel, and when. */
  async decide(
    caller: Caller,
    id: string,
    approve: boolean,
    channel: ApprovalChannel,
  ): Promise<ApprovalRecord> {
    if (caller.credential !== 'operator') throw operatorRequired();
    return this.audited(caller, id, approve, channel);
  }

  private async audited(
    caller: Caller,
    id: string,
    approve: boolean,
    channel: ApprovalChannel,
  ): Promise<ApprovalRecord> {
    const record = await this.book.fetch(id);
    const takeover = record.kind === 'takeover';
    const decide = async () => {
      const decided = await this.book.decide(id, approve, caller.principalId, channel);
      const verdict = takeover ? (approve ? 'marked done' : 'declined') : approve ? 'approved' : 'denied';
      this.o.log.info(
        `${takeover ? 'takeover' : 'approval'} ${verdict} by the ${channel === 'extension' ? 'person in the extension' : 'owner'}`,
        {
          approval_id: id,
          session_id: decided.session_id,
          channel,
        },
      );
      return decided;
    };
    // A takeover's one audit row is its call's, which names who decided and how it ended.
    if (!this.o.audit || takeover) return decide();
    return this.o.audit.track(
      {
        caller,
        sessionId: record.session_id,
        action: approve ? 'approval.approve' : 'approval.deny',
        arguments: { approval: id, channel, tool: record.tool, classes: record.classes },
        toolCallId: null,
        backend: 'owner',
        controllerId: null,
      },
      decide,
    );
  }

  /** The owner's list. */
  list(caller: Caller, pendingOnly: boolean): ApprovalRecord[] {
    if (caller.credential !== 'operator') throw operatorRequired();
    return this.book.list(pendingOnly);
  }

  forgetSession(sessionId: string): void {
    this.secretOrigins.delete(sessionId);
    this.withdrawSession(sessionId);
  }

  /** Withdraws what a session's calls wait for (Stop): a decision made afterwards runs nothing. */
  withdrawSession(sessionId: string): void {
    for (const record of this.book.list(true))
      if (record.session_id === sessionId) this.book.withdraw(record.approval_id);
  }

  close(): void {
    this.book.close();
  }
}
