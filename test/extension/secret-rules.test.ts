/**
 * The browser-wide rules for filled secrets (secret-rules.ts): one block rule per form of each value,
 * matched case-insensitively; a user name not on its own host; ids kept between the metadata rules and
 * the site rules, so neither replaces them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formsOf } from '../../src/engine/secret-forms.js';
import { secretRulesFor } from '../../src/extension/background/secret-rules.js';
import { FIRST_SITE_RULE_ID } from '../../src/extension/background/site-rules.js';

const password = {
  name: 'p',
  origin: 'https://accounts.example.com',
  field: 'password',
  value: 'pw/1+?&',
} as const;
const username = {
  name: 'u',
  origin: 'https://accounts.example.com',
  field: 'username',
  value: 'bob',
} as const;

describe('secret rules', () => {
  it('blocks every form of a password everywhere, and a user name everywhere but its own host', () => {
    const rules = secretRulesFor([password, username]);
    const forRegex = (form: string) =>
      rules.find((rule) => rule.condition.regexFilter === form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    for (const form of formsOf(password.value)) {
      const rule = forRegex(form);
      assert.ok(rule, form);
      assert.equal(rule.condition.excludedRequestDomains, undefined);
      assert.equal(rule.condition.isUrlFilterCaseSensitive, false);
      assert.ok(
        rule.condition.resourceTypes.includes('main_frame') &&
          rule.condition.resourceTypes.includes('xmlhttprequest'),
      );
    }
    assert.deepEqual(forRegex('bob')?.condition.excludedRequestDomains, ['accounts.example.com']);
    for (const rule of rules) assert.ok(rule.id >= 50 && rule.id < FIRST_SITE_RULE_ID, String(rule.id));
    assert.equal(new Set(rules.map((rule) => rule.id)).size, rules.length);
  });

  it('leaves a form too long for a rule to the debugger, and stops at its last id', () => {
    const long = { ...password, value: 'x'.repeat(150) };
    const rules = secretRulesFor([long]);
    assert.ok(rules.every((rule) => rule.condition.regexFilter.length <= 200));
    assert.ok(rules.some((rule) => rule.condition.regexFilter === 'x'.repeat(150)));
    const many = Array.from({ length: 20 }, (_, i) => ({ ...password, name: `p${i}`, value: `secret-${i}` }));
    const capped = secretRulesFor(many);
    assert.equal(capped.length, 50);
    // The most recent fills keep their rules.
    assert.ok(capped.some((rule) => rule.condition.regexFilter === 'secret-19'));
  });
});
