/**
 * The filled vault secrets at the network layer of the whole browser, beside the debugger's check
 * (tab-network.ts): declarativeNetRequest session rules that block every request, of every kind and
 * from every tab, whose URL carries a filled value in one of its forms (secret-forms.ts), so a tab the
 * page opens is covered from its first request (before it joins the share and the debugger attaches),
 * and so are service workers, with the extension's worker asleep. A rule matches the forms as written
 * (case-insensitively); the debugger's check also reads the URL percent-decoded. A user name is not
 * blocked on its own site (its host), as on every backend.
 *
 * Session rules live in memory, never on disk; they go when the share ends.
 */
import { formsOf } from '../../engine/secret-forms.js';
import type { SecretFill } from '../../protocol/index.js';
import { RESOURCE_TYPES } from './metadata-rule.js';

interface SecretRule {
  id: number;
  priority: number;
  action: { type: 'block' };
  condition: {
    regexFilter: string;
    isUrlFilterCaseSensitive: false;
    resourceTypes: string[];
    excludedRequestDomains?: string[];
  };
}

interface DeclarativeNetRequest {
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: SecretRule[] }): Promise<void>;
}

/** Between the metadata rules (from 1) and the site rules (from 100, site-rules.ts). */
const FIRST_RULE_ID = 50;
const RULE_IDS = Array.from({ length: 50 }, (_, i) => FIRST_RULE_ID + i);
/** Above the site rules' allows (4) and denies (5); the metadata rules (10) block anyway. */
const PRIORITY = 6;
/** Chrome refuses a rule whose compiled expression is over 2 KB: a longer form is the debugger's alone. */
const MAX_FORM_CHARS = 200;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).hostname;
  } catch {
    return null;
  }
}

/** One rule per form of each value, most recent fills first while ids last. */
export function secretRulesFor(fills: readonly SecretFill[]): SecretRule[] {
  const rules: SecretRule[] = [];
  for (const fill of [...fills].reverse()) {
    const host = fill.field === 'username' ? hostOf(fill.origin) : null;
    for (const form of formsOf(fill.value)) {
      const id = RULE_IDS[rules.length];
      if (id === undefined) return rules;
      if (form.length > MAX_FORM_CHARS) continue;
      rules.push({
        id,
        priority: PRIORITY,
        action: { type: 'block' },
        condition: {
          regexFilter: escape(form),
          isUrlFilterCaseSensitive: false,
          resourceTypes: RESOURCE_TYPES,
          ...(host ? { excludedRequestDomains: [host] } : {}),
        },
      });
    }
  }
  return rules;
}

function api(): DeclarativeNetRequest {
  return (globalThis as unknown as { chrome: { declarativeNetRequest: DeclarativeNetRequest } }).chrome
    .declarativeNetRequest;
}

/**
 * Replaces the secret rules, in one update; when Chrome refuses it (a form whose expression is over its
 * memory limit), one rule at a time, keeping every rule it takes: what it refuses is still checked by
 * the debugger, and a fill is never refused for it.
 */
export async function installSecretRules(fills: readonly SecretFill[]): Promise<void> {
  const rules = secretRulesFor(fills);
  try {
    await api().updateSessionRules({ removeRuleIds: RULE_IDS, addRules: rules });
  } catch {
    await api()
      .updateSessionRules({ removeRuleIds: RULE_IDS })
      .catch(() => undefined);
    for (const rule of rules)
      await api()
        .updateSessionRules({ addRules: [rule] })
        .catch(() => undefined);
  }
}

/** The share ended. Never throws. */
export async function removeSecretRules(): Promise<void> {
  await api()
    .updateSessionRules({ removeRuleIds: RULE_IDS })
    .catch(() => undefined);
}
