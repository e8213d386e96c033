/**
 * Approvals of consequential actions (docs/safety.md "Approvals"): the action classes, how an element's
 * facts fall into them, and the record an approval channel shows and decides. Pure and shared: the
 * engine classifies with it on every CDP backend, and so can the extension on the user's tab.
 */

/** The action classes, structural first, then lexical, then by place and by kind. */
export const ACTION_CLASSES = [
  /** A click or Enter that submits a form whose method is POST or whose action/target origin differs. */
  'form_submit',
  /** A click on a control whose accessible name matches the irreversible lexicon. */
  'irreversible_name',
  /** Any click or typing on an origin the owner listed as per-action. */
  'per_action_origin',
  /** Setting files on a file input. */
  'upload',
  /** A click on a link that downloads (`<a download>`). */
  'download',
  /** Accepting a `confirm` or `beforeunload` dialog. */
  'dialog_accept',
  /** Typing a vault secret on an origin for the first time in the session. */
  'secret_first_use',
  /** A document, fetch or XHR request with a body sent while an agent's input runs. */
  'request_with_body',
] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];

/** The default irreversible lexicon: English, German, French, Spanish. */
/**
 * The tools that give a page input (a pointer or a key, a value set, an option chosen): the ones an
 * approval may have to hold. The engine adds `browser_dialog` and `browser_upload`, the extension
 * `browser_dialog`, each where it judges them; one list, so a new input tool is gated everywhere.
 */
export const PAGE_INPUT_TOOLS = [
  'browser_click',
  'browser_type',
  'browser_press',
  'browser_select_option',
  'browser_fill_form',
  'browser_drag',
] as const;

export const DEFAULT_IRREVERSIBLE_LEXICON: readonly string[] = [
  'buy',
  'pay',
  'place order',
  'purchase',
  'checkout',
  'check out',
  'subscribe',
  'send',
  'post',
  'publish',
  'delete',
  'remove',
  'transfer',
  'sign',
  'authorize',
  'authorise',
  'accept',
  'kaufen',
  'bezahlen',
  'senden',
  'löschen',
  'acheter',
  'payer',
  'envoyer',
  'supprimer',
  'comprar',
  'pagar',
  'enviar',
  'eliminar',
  'borrar',
];

/** What the gateway holds a session's actions to: the classes on, the lexicon, per-action origins. */
export interface ApprovalPolicy {
  classes: readonly ActionClass[];
  lexicon: readonly string[];
  /** Canonical origins (`https://bank.example`) where every click and keystroke needs approval. */
  perActionOrigins: readonly string[];
}

/** What the page says of the element an input would reach, read before anything is dispatched. */
export interface ElementFacts {
  role: string;
  name: string;
  /** The origin of the element's frame (`null` for an opaque one). */
  frameOrigin: string;
  /** The form this input would submit, if it would submit one. */
  submits: { method: string; actionOrigin: string; targetsOtherWindow: boolean } | null;
  /** A link with a `download` attribute. */
  downloads: boolean;
  /** A file input (a click opens the file chooser). */
  fileInput: boolean;
}

/** The first lexicon entry the name matches as whole words, case- and accent-insensitively. */
export function lexiconMatch(name: string, lexicon: readonly string[]): string | null {
  const words = normalizeWords(name);
  if (words === '') return null;
  for (const entry of lexicon) {
    const wanted = normalizeWords(entry);
    if (wanted !== '' && ` ${words} `.includes(` ${wanted} `)) return entry;
  }
  return null;
}

function normalizeWords(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The classes an input on an element falls into under a policy: a click, Enter in it, or typing. */
export function classifyInput(
  facts: ElementFacts,
  input: 'click' | 'enter' | 'type',
  policy: ApprovalPolicy,
): ActionClass[] {
  const on = new Set(policy.classes);
  const found: ActionClass[] = [];
  const submits = facts.submits;
  if (
    on.has('form_submit') &&
    input !== 'type' &&
    submits &&
    (submits.method === 'post' || submits.actionOrigin !== facts.frameOrigin || submits.targetsOtherWindow)
  )
    found.push('form_submit');
  if (on.has('irreversible_name') && input === 'click' && lexiconMatch(facts.name, policy.lexicon) !== null)
    found.push('irreversible_name');
  if (on.has('per_action_origin') && policy.perActionOrigins.includes(facts.frameOrigin))
    found.push('per_action_origin');
  if (on.has('download') && input === 'click' && facts.downloads) found.push('download');
  if (on.has('upload') && input === 'click' && facts.fileInput) found.push('upload');
  return found;
}

/** What an engine asks a channel to approve: the action in words, the element and where it is. */
export interface ApprovalAsk {
  /** The ref the action reaches, or null (a dialog, a key pressed on the focused element). */
  ref: string | null;
  frameOrigin: string;
  classes: ActionClass[];
  /** The action in words: `click button "Place order" on https://shop.test (form_submit, …)`. */
  summary: string;
}

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'used'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * What a record asks of the person: to approve one `action` the agent would perform, or a `takeover`
 * (browser_request_takeover): to do a step on the page themselves, then mark it done. A takeover is
 * decided through the same channels; approving it means "done", denying it "declined".
 */
export const APPROVAL_KINDS = ['action', 'takeover'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** The tool that asks the person to take over; answered by the gateway on every backend. */
export const TAKEOVER_TOOL = 'browser_request_takeover';

/** Where a decision came from. */
export const APPROVAL_CHANNELS = ['cli', 'dashboard', 'api', 'extension'] as const;
export type ApprovalChannel = (typeof APPROVAL_CHANNELS)[number];

/**
 * One approval, as channels show it. It approves exactly one action: this session, this tool with
 * these arguments (by hash), this ref in a frame of this origin, until it expires, once.
 */
export interface ApprovalRecord {
  approval_id: string;
  kind: ApprovalKind;
  session_id: string;
  tool: string;
  argument_hash: string;
  ref: string | null;
  frame_origin: string;
  classes: ActionClass[];
  /** The action in words; for a takeover, the agent's reason (untrusted text: shown, never rendered). */
  summary: string;
  status: ApprovalStatus;
  /** ISO 8601. */
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  /** The principal that decided (the owner), and through which channel. */
  decided_by: string | null;
  channel: ApprovalChannel | null;
}
