/**
 * The extension's network rules say what the one site policy says (src/protocol/site-policy.ts): for
 * each URL of a table, the rule Chrome would apply (the highest-priority match; allow or block) agrees
 * with SiteRules' decision. Chrome matches rules against its canonical URL, which is what `new URL()`
 * writes, so the table is run through it first. The real rules in real Chromium are proven by
 * site-grants.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SiteRules, type SitePolicy } from '../../src/protocol/index.js';
import { siteRulesFor, type SiteRule } from '../../src/extension/background/site-rules.js';
import { METADATA_RULE_PRIORITY } from '../../src/extension/background/metadata-rule.js';

/** What Chrome does with a main-frame request of a shared tab: the top-priority matching rule decides. */
function chromeAllows(rules: SiteRule[], raw: string, tabId: number): boolean {
  const url = new URL(raw);
  const host = url.hostname.replace(/\.$/, '');
  const matching = rules.filter((rule) => {
    const { condition } = rule;
    if (condition.tabIds && !condition.tabIds.includes(tabId)) return false;
    if (condition.excludedTabIds?.includes(tabId)) return false;
    if (condition.regexFilter && !new RegExp(condition.regexFilter, 'i').test(url.href)) return false;
    if (
      condition.requestDomains &&
      !condition.requestDomains.some((d) => host === d || host.endsWith(`.${d}`))
    )
      return false;
    return true;
  });
  if (matching.length === 0) return true;
  const top = Math.max(...matching.map((rule) => rule.priority));
  // At equal priority Chrome lets allow win over block.
  return matching.some((rule) => rule.priority === top && rule.action.type === 'allow');
}

const POLICY: SitePolicy = {
  mode: 'ask',
  allow: ['*.wikipedia.org', 'http://localhost:8080'],
  deny: ['denied.example', '*.evil.example'],
  grants: ['https://mail.example.com', 'bank.chase.com'],
  blockedCategories: ['banking', 'payments'],
};
const SHARED = 'https://shop.example';

const URLS = [
  'https://shop.example/cart',
  'https://shop.example:443/',
  'http://shop.example/',
  'https://shop.example.evil.tld/',
  'https://mail.example.com/inbox',
  'https://MAIL.example.com./',
  'https://mail.example.com:8443/',
  'http://mail.example.com/',
  'https://en.wikipedia.org/wiki/X',
  'https://wikipedia.org/',
  'https://wikipedia.org.evil.tld/',
  'http://localhost:8080/x',
  'http://localhost:8081/x',
  'https://denied.example/',
  'http://denied.example:9/',
  'https://sub.denied.example/',
  'https://a.b.evil.example/',
  'https://www.chase.com/',
  'https://bank.chase.com/',
  'https://paypal.com/',
  'https://other.example/',
  'https://shop.example@other.example/',
  'https://xn--pple-43d.com/',
  'http://[::1]/',
  'http://127.0.0.1/',
];

describe("the extension's site rules", () => {
  it('decide every URL of the table as the site policy does, in a shared tab', () => {
    const rules = siteRulesFor(POLICY, { tabIds: [7] }, SHARED);
    const site = new SiteRules(POLICY);
    for (const raw of URLS) {
      const expected = site.decideUrl(new URL(raw).href, SHARED).allowed;
      assert.equal(chromeAllows(rules, raw, 7), expected, raw);
    }
  });

  it('hold no tab but the shared ones, and every new tab while an action may open one', () => {
    const shared = siteRulesFor(POLICY, { tabIds: [7] }, SHARED);
    assert.equal(chromeAllows(shared, 'https://other.example/', 8), true);
    const whileActing = siteRulesFor(POLICY, { excludedTabIds: [8] }, SHARED);
    assert.equal(chromeAllows(whileActing, 'https://other.example/', 8), true);
    assert.equal(chromeAllows(whileActing, 'https://other.example/', 9), false);
  });

  it('keep only the shared origin open when no policy could be read', () => {
    const rules = siteRulesFor(null, { tabIds: [7] }, SHARED);
    assert.equal(chromeAllows(rules, 'https://shop.example/x', 7), true);
    assert.equal(chromeAllows(rules, 'https://mail.example.com/', 7), false);
    assert.equal(chromeAllows(rules, 'https://en.wikipedia.org/', 7), false);
  });

  it('make no rules for a share without tabs, and stay below the metadata rules', () => {
    assert.deepEqual(siteRulesFor(POLICY, { tabIds: [] }, SHARED), []);
    const rules = siteRulesFor(POLICY, { tabIds: [7] }, SHARED);
    assert.ok(rules.every((rule) => rule.priority < METADATA_RULE_PRIORITY));
    assert.equal(new Set(rules.map((rule) => rule.id)).size, rules.length);
  });
});
