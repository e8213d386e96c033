/**
 * The engine's half of approvals (docs/safety.md "Approvals"): before an input is dispatched, the facts
 * of the element it would reach are read from the page and classified; an input that falls into a class
 * the session's policy turns on waits for the gate (the gateway's approval channel) and is not
 * dispatched unless it is approved. A request with a body that the page sends while such an input runs
 * (a fetch after a click) is held in the browser by the network guard until the gate decides.
 */
import {
  classifyInput,
  type ActionClass,
  type ApprovalAsk,
  type ApprovalPolicy,
  type ElementFacts,
} from '../protocol/index.js';
import { bindingOf } from './actions.js';
import { staleError, type PageAgent } from './frame-worlds.js';
import type { AgentState } from './page/agent-state.js';
import type { Tab } from './tab.js';

/** What one call is held to; the gateway makes one per call. */
export interface ActionGate {
  readonly policy: ApprovalPolicy;
  /**
   * Resolves once this action may happen (approved now, or by an approval of this same call made
   * earlier); rejects with `approval_denied`, `approval_timeout` or `approval_required` otherwise.
   */
  ask(ask: ApprovalAsk): Promise<void>;
  /** Whether a vault secret has not yet been typed on this origin in the session. */
  firstSecretUse(origin: string): boolean;
  /** Records that a vault secret was typed on this origin. */
  secretUsed(origin: string): void;
}

/** A request the network guard paused, for the gate of the call that runs. */
export interface HeldRequest {
  url: string;
  method: string;
  resourceType: string;
}

/** Where the last gated input of a call was: what a request it set off is bound to. */
export interface GatedInput {
  ref: string | null;
  frameOrigin: string;
  what: string;
}

type Input = 'click' | 'enter' | 'type';

/** The facts of an element (or, `id` null, of the focused element) as the page has them now. */
function pageFacts(agent: PageAgent, arg: { id: number | null; input: Input }): ElementFacts | null {
  let el: Element | null = arg.id === null ? document.activeElement : agent.lookup(arg.id);
  if (!el) return null;
  const names = (agent as unknown as AgentState).names;
  let role = el.tagName.toLowerCase();
  let name = '';
  try {
    role = names?.roleOf(el, getComputedStyle(el), 'auto') ?? role;
    name = names ? names.nameOf(el, role) : '';
  } catch {
    // The names module may not be installed in this world yet; fall back to plain attributes.
  }
  if (name === '')
    name = (el.getAttribute('aria-label') ?? (el as HTMLInputElement).value ?? el.textContent ?? '')
      .trim()
      .slice(0, 150);
  const originOf = (url: string) => {
    try {
      return new URL(url, location.href).origin;
    } catch {
      return 'null';
    }
  };
  let submits: ElementFacts['submits'] = null;
  // A click lands on the control or inside it: the button around a span submits all the same.
  if (arg.input === 'click') el = el.closest('button, input') ?? el;
  const control = el as HTMLButtonElement | HTMLInputElement;
  const form =
    control instanceof HTMLButtonElement || control instanceof HTMLInputElement ? control.form : null;
  if (form) {
    const type = (control.getAttribute('type') ?? '').toLowerCase();
    const isSubmitButton =
      control instanceof HTMLButtonElement
        ? type === '' || type === 'submit'
        : type === 'submit' || type === 'image';
    const implicit =
      arg.input === 'enter' &&
      control instanceof HTMLInputElement &&
      !['checkbox', 'radio', 'button', 'reset', 'file', 'submit', 'image'].includes(type);
    if (
      (arg.input === 'click' && isSubmitButton) ||
      (arg.input === 'enter' && (isSubmitButton || implicit))
    ) {
      const over = (attr: string, fallback: string) =>
        isSubmitButton && control.hasAttribute(attr) ? (control.getAttribute(attr) ?? '') : fallback;
      const method = over('formmethod', form.getAttribute('method') ?? 'get').toLowerCase() || 'get';
      const action = over('formaction', form.getAttribute('action') ?? location.href) || location.href;
      const target = over('formtarget', form.getAttribute('target') ?? '').toLowerCase();
      submits = {
        method: method === 'post' || method === 'dialog' ? method : 'get',
        actionOrigin: originOf(action),
        targetsOtherWindow: target !== '' && target !== '_self',
      };
    }
  }
  return {
    role,
    name,
    frameOrigin: location.origin,
    submits,
    downloads: el.closest('a[download]') !== null,
    fileInput: el instanceof HTMLInputElement && el.type === 'file',
  };
}

/** The classes an input falls into and where it is; what the gate is asked when there are any. */
export interface GateCheck {
  classes: ActionClass[];
  input: GatedInput;
}

async function factsOf(tab: Tab, ref: string | null, input: Input): Promise<ElementFacts | null> {
  if (ref === null) {
    const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    const facts = await tab.pageWorlds.call(contextId, pageFacts, { id: null, input });
    if (facts) facts.frameOrigin = tab.pageWorlds.originOf(contextId) ?? facts.frameOrigin;
    return facts;
  }
  const binding = bindingOf(tab, ref);
  const facts = await binding.worlds.call(binding.contextId, pageFacts, { id: binding.localId, input });
  if (!facts) throw staleError();
  // Chromium's account of the frame's origin, not the page's (a page cannot lie about it).
  facts.frameOrigin = binding.worlds.originOf(binding.contextId) ?? facts.frameOrigin;
  return facts;
}

const VERBS: Record<Input, string> = { click: 'click', enter: 'press Enter in', type: 'type into' };

/** Reads, classifies and, when the input falls into a class that is on, waits for the gate. */
export async function gateInput(
  tab: Tab,
  gate: ActionGate,
  ref: string | null,
  input: Input,
  extra: ActionClass[] = [],
): Promise<GatedInput> {
  const facts = await factsOf(tab, ref, input);
  // The focus is in a frame our world cannot see into (`null` facts): what Enter submits is unknown.
  const classes = facts
    ? classifyInput(facts, input, gate.policy)
    : gate.policy.classes.includes('form_submit')
      ? (['form_submit'] as ActionClass[])
      : [];
  for (const cls of extra) if (!classes.includes(cls)) classes.push(cls);
  const frameOrigin =
    facts?.frameOrigin ?? tab.pageWorlds.originOf(await tab.pageWorlds.contextFor(tab.mainFrameId)) ?? 'null';
  const element = facts ? `${facts.role} ${JSON.stringify(facts.name.slice(0, 100))}` : 'the focused element';
  const gated: GatedInput = {
    ref,
    frameOrigin,
    what: `${VERBS[input]} ${ref ? `${ref} ` : ''}${element} on ${frameOrigin}`,
  };
  if (facts?.submits && classes.includes('form_submit'))
    gated.what += ` (submits a ${facts.submits.method.toUpperCase()} form to ${facts.submits.actionOrigin})`;
  if (classes.length > 0) await gate.ask({ ref, frameOrigin, classes, summary: gated.what });
  return gated;
}

/** Asks the gate about an action that has no element to read (a dialog, an upload's files). */
export async function gateAction(
  gate: ActionGate,
  cls: ActionClass,
  ref: string | null,
  frameOrigin: string,
  summary: string,
): Promise<void> {
  if (!gate.policy.classes.includes(cls)) return;
  await gate.ask({ ref, frameOrigin, classes: [cls], summary });
}

/** The origin of a ref's frame, by Chromium's account. */
export function originOfRef(tab: Tab, ref: string): string {
  const binding = bindingOf(tab, ref);
  return binding.worlds.originOf(binding.contextId) ?? 'null';
}

/** Methods that carry no body and change nothing by the standard; their requests are never held. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const HELD_TYPES = new Set(['Document', 'XHR', 'Fetch', 'Other', 'Ping', 'EventSource']);

/** Whether the network guard should hold this request for the running call's gate. */
export function mayNeedApproval(request: HeldRequest): boolean {
  return !SAFE_METHODS.has(request.method.toUpperCase()) && HELD_TYPES.has(request.resourceType);
}

/** Long enough for a request a click sets off from a short timer to reach the guard and be held. */
const REQUEST_QUIET_MS = 300;

/**
 * One call's gate: asks about its inputs, holds the requests with a body its page sends while it runs
 * (bound to the call's last gated input), and fails the call with the gate's answer if one was refused.
 */
export class CallGate {
  private last: GatedInput | null = null;
  private readonly holds: Promise<unknown>[] = [];
  private refusal: Error | null = null;

  constructor(readonly gate: ActionGate) {}

  get watchesRequests(): boolean {
    return this.gate.policy.classes.includes('request_with_body');
  }

  async input(tab: Tab, ref: string | null, input: Input, extra: ActionClass[] = []): Promise<GatedInput> {
    this.last = await gateInput(tab, this.gate, ref, input, extra);
    return this.last;
  }

  async action(cls: ActionClass, ref: string | null, frameOrigin: string, summary: string): Promise<void> {
    this.last = { ref, frameOrigin, what: summary };
    await gateAction(this.gate, cls, ref, frameOrigin, summary);
  }

  hold(request: HeldRequest): Promise<boolean> {
    const last = this.last;
    const held = this.gate
      .ask({
        ref: last?.ref ?? null,
        frameOrigin: last?.frameOrigin ?? originOfUrl(request.url),
        classes: ['request_with_body'],
        summary: `${last ? `${last.what}, which` : 'the page'} sends ${request.method.toUpperCase()} ${request.url.slice(0, 200)}`,
      })
      .then(
        () => true,
        (error: unknown) => {
          this.refusal ??= error instanceof Error ? error : new Error('the approval failed');
          return false;
        },
      );
    this.holds.push(held);
    return held;
  }

  /** Waits for requests the input set off late, then for every hold to be decided; throws a refusal. */
  async settle(): Promise<void> {
    if (this.watchesRequests && this.last)
      await new Promise((resolve) => setTimeout(resolve, REQUEST_QUIET_MS));
    await Promise.all(this.holds);
    if (this.refusal) throw this.refusal;
  }
}

function originOfUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}
