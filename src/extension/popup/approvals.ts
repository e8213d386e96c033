/**
 * The approvals the shared session waits for, in the popup: browser chrome that neither the agent nor
 * the page can reach. Each shows the origin, the action in words (the element, its name, the form it
 * submits), the classes that made it need approval and a crop of the element; Approve and Deny answer
 * only a trusted click, and the worker accepts the decision only from this page (tab-approvals.ts).
 * A takeover shows the agent's reason — its words, so plain text, never markup — and Done / Decline:
 * the person does the step on the tab, then says so.
 */
import type { ApprovalsView, ApprovalView } from '../messages.js';
import { heldPress, listsChanged } from './held-buttons.js';
import { $ } from './view.js';

let shown = '';

function takeoverItem(approval: ApprovalView, decide: (id: string, approve: boolean) => void): HTMLLIElement {
  const li = document.createElement('li');
  li.className = 'approval takeover';
  li.dataset.approvalId = approval.approval_id;
  const title = document.createElement('strong');
  title.textContent = 'Your agent asks you to do this yourself:';
  const reason = document.createElement('p');
  reason.className = 'approval-summary';
  // The agent's words: shown as text, never interpreted.
  reason.textContent = approval.summary;
  const where = document.createElement('p');
  where.className = 'muted';
  where.textContent = `${approval.frame_origin ? `On ${approval.frame_origin}. ` : ''}The agent waits and does nothing on this tab until you press Done or Decline; it learns only which you pressed and where the page is, never what you typed.`;
  li.append(title, reason, where);
  appendDecision(li, approval, decide, {
    yes: ['Done', 'done'],
    no: ['Decline', 'decline'],
    elsewhere: 'Another browser holds this one; decide it there or in the dashboard.',
  });
  return li;
}

function item(approval: ApprovalView, decide: (id: string, approve: boolean) => void): HTMLLIElement {
  if (approval.kind === 'takeover') return takeoverItem(approval, decide);
  const li = document.createElement('li');
  li.className = 'approval';
  li.dataset.approvalId = approval.approval_id;
  const origin = document.createElement('strong');
  origin.textContent = approval.frame_origin;
  const what = document.createElement('p');
  what.className = 'approval-summary';
  what.textContent = approval.summary;
  const why = document.createElement('p');
  why.className = 'muted';
  why.textContent = `Needs approval: ${approval.classes.join(', ').replaceAll('_', ' ')}`;
  li.append(origin, what, why);
  if (approval.crop) {
    const img = document.createElement('img');
    img.className = 'approval-crop';
    img.alt = 'What the agent would act on';
    img.src = approval.crop;
    li.append(img);
  }
  appendDecision(li, approval, decide, {
    yes: ['Approve', 'approve'],
    no: ['Deny', 'deny'],
    elsewhere: 'Asked by another browser; decide it there or in the dashboard.',
  });
  return li;
}

/**
 * The person's two answers as buttons (`data-decision` names each for the tests), or, when another
 * browser holds the record, where to decide it instead.
 */
function appendDecision(
  li: HTMLLIElement,
  approval: ApprovalView,
  decide: (id: string, approve: boolean) => void,
  words: { yes: [string, string]; no: [string, string]; elsewhere: string },
): void {
  if (!approval.decidable) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = words.elsewhere;
    li.append(note);
    return;
  }
  for (const [approve, [label, decision]] of [
    [true, words.yes],
    [false, words.no],
  ] as const) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = approve ? '' : 'secondary';
    button.dataset.approval = approval.approval_id;
    button.dataset.decision = decision;
    button.textContent = label;
    button.addEventListener('click', (event) => {
      // A person's click: a synthetic event from a script in this page is no decision, nor a press on
      // a button the list just moved.
      if (event.isTrusted && !heldPress(event)) decide(approval.approval_id, approve);
    });
    li.append(button);
  }
}

/** Draws the list and the Stop / Resume state; only on change, so a button never moves under the pointer. */
export function renderApprovals(view: ApprovalsView, decide: (id: string, approve: boolean) => void): void {
  const key = JSON.stringify(view);
  if (key === shown) return;
  shown = key;
  $('approvals-box').hidden = view.approvals.length === 0;
  $('approvals').replaceChildren(...view.approvals.slice(0, 10).map((a) => item(a, decide)));
  listsChanged();
  $('stopped-note').hidden = !view.stopped;
  $('stop-agent').hidden = view.stopped;
  $('resume-agent').hidden = !view.stopped;
}

export function approvalsChanged(): void {
  shown = '';
}
