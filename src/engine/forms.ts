/**
 * Choosing options and filling forms. Options are chosen in the page (there is no trusted input for a
 * native select's list), with the input and change events a user's choice fires; text goes in as
 * trusted input (actions.ts), and checkboxes and radios are clicked only when their state must change.
 */
import { TabgateError } from '../protocol/index.js';
import { bindingOf, click, typeInto } from './actions.js';
import { staleError, type PageAgent } from './frame-worlds.js';
import type { Tab } from './tab.js';

type SelectOutcome =
  | { ok: true; chosen: string[] }
  | {
      ok: false;
      reason: 'stale' | 'disabled' | 'not_select' | 'not_multiple' | 'no_option';
      detail?: string;
    };

function pageSelect(agent: PageAgent, arg: { id: number; values: string[] }): SelectOutcome {
  const el = agent.lookup(arg.id);
  if (!el) return { ok: false, reason: 'stale' };
  if (!(el instanceof HTMLSelectElement)) return { ok: false, reason: 'not_select' };
  if (el.disabled) return { ok: false, reason: 'disabled' };
  if (arg.values.length > 1 && !el.multiple) return { ok: false, reason: 'not_multiple' };
  const options = [...el.options];
  const wanted = arg.values.map((value) => {
    const v = value.trim().toLowerCase();
    return (
      options.find((o) => o.value.toLowerCase() === v) ??
      options.find((o) => o.label.trim().toLowerCase() === v)
    );
  });
  const missing = arg.values.filter((_, i) => !wanted[i]);
  if (missing.length > 0) {
    const labels = options.map((o) => o.label.trim()).slice(0, 30);
    return {
      ok: false,
      reason: 'no_option',
      detail: `${missing.join(', ')} (options: ${labels.join(', ')})`,
    };
  }
  for (const option of options) option.selected = wanted.includes(option);
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: true, chosen: wanted.map((o) => (o ? o.label.trim() : '')) };
}

type FieldKind =
  { kind: 'select' | 'text' | 'other' } | { kind: 'checkbox' | 'radio'; checked: boolean } | null;

function pageFieldKind(agent: PageAgent, id: number): FieldKind {
  const el = agent.lookup(id);
  if (!el) return null;
  if (el instanceof HTMLSelectElement) return { kind: 'select' };
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio'))
    return { kind: el.type, checked: el.checked };
  const role = el.getAttribute('role');
  if (role === 'checkbox' || role === 'switch' || role === 'radio')
    return {
      kind: role === 'radio' ? 'radio' : 'checkbox',
      checked: el.getAttribute('aria-checked') === 'true',
    };
  return { kind: 'text' };
}

export async function selectOptions(tab: Tab, ref: string, values: string[]): Promise<string[]> {
  const binding = bindingOf(tab, ref);
  const outcome = await binding.worlds.call(binding.contextId, pageSelect, { id: binding.localId, values });
  if (outcome.ok) return outcome.chosen;
  const why: Record<typeof outcome.reason, string> = {
    stale: '',
    disabled: `${ref} is disabled.`,
    not_select: `${ref} is not a select (list box); use browser_click or browser_type.`,
    not_multiple: `${ref} takes one option; pass one value.`,
    no_option: `${ref} has no option ${outcome.detail ?? ''}.`,
  };
  if (outcome.reason === 'stale') throw staleError();
  throw new TabgateError('element_not_interactable', why[outcome.reason]);
}

const truthy = (value: string | boolean) =>
  typeof value === 'boolean' ? value : /^(true|checked|on|yes|1)$/i.test(value.trim());

/** Fills one field after another; stops at the first that fails, naming it. */
export async function fillForm(
  tab: Tab,
  fields: readonly { ref: string; value: string | boolean }[],
): Promise<string[]> {
  const filled: string[] = [];
  for (const [index, { ref, value }] of fields.entries()) {
    try {
      const binding = bindingOf(tab, ref);
      const field = await binding.worlds.call(binding.contextId, pageFieldKind, binding.localId);
      if (!field) throw staleError();
      if (field.kind === 'checkbox' || field.kind === 'radio') {
        const wanted = truthy(value);
        if (field.kind === 'radio' && !wanted && field.checked) {
          throw new TabgateError(
            'element_not_interactable',
            `${ref} is a radio button: choose another option of its group instead of unchecking it.`,
          );
        }
        if (field.checked !== wanted) await click(tab, ref);
      } else if (field.kind === 'select') {
        await selectOptions(tab, ref, [String(value)]);
      } else {
        await typeInto(tab, ref, String(value));
      }
      filled.push(ref);
    } catch (error) {
      if (error instanceof TabgateError) {
        throw new TabgateError(error.code, `fields.${index} (${ref}): ${error.message}`, {
          filled,
        });
      }
      throw error;
    }
  }
  return filled;
}
