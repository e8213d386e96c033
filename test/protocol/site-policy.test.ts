import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SITE_CATEGORIES,
  SITE_CATEGORY_NAMES,
  SiteRules,
  normalizeSitePattern,
  parseSitePattern,
  parseSiteUrl,
  refusalRule,
  type SitePolicy,
} from '../../src/protocol/index.js';

const policy = (over: Partial<SitePolicy>): SitePolicy => ({
  mode: 'ask',
  allow: [],
  deny: [],
  grants: [],
  blockedCategories: SITE_CATEGORY_NAMES,
  ...over,
});

type Expect = 'allowed' | 'site_not_granted' | 'site_blocked';

/** A URL, the rules in force, what must happen, and the bypass the case is about. */
const CASES: { why: string; url: string; rules: Partial<SitePolicy>; expect: Expect; shared?: string }[] = [
  {
    why: 'exact origin granted',
    url: 'https://a.test/x?y#z',
    rules: { grants: ['https://a.test'] },
    expect: 'allowed',
  },
  {
    why: 'userinfo names the granted site but goes elsewhere',
    url: 'https://a.test@evil.test/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'userinfo with a password',
    url: 'https://a.test:pw@a.test/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'suffix of the granted name is another site',
    url: 'https://a.test.evil.tld/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'a host pattern is no string prefix',
    url: 'https://a.test.evil.tld/',
    rules: { grants: ['*.a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'a look-alike ending in the granted name',
    url: 'https://evila.test/',
    rules: { grants: ['a.test', '*.a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: '*. matches a subdomain',
    url: 'https://mail.a.test/',
    rules: { grants: ['*.a.test'] },
    expect: 'allowed',
  },
  {
    why: '*. matches a deep subdomain',
    url: 'https://x.y.a.test/',
    rules: { grants: ['*.a.test'] },
    expect: 'allowed',
  },
  {
    why: '*. does not match the parent itself',
    url: 'https://a.test/',
    rules: { grants: ['*.a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'an origin grant is scheme-exact',
    url: 'http://a.test/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'an origin grant is port-exact',
    url: 'https://a.test:8443/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'a default port is the same origin',
    url: 'https://a.test:443/',
    rules: { grants: ['https://a.test'] },
    expect: 'allowed',
  },
  {
    why: 'mixed case is the same host',
    url: 'HTTPS://A.TeSt/',
    rules: { grants: ['https://a.test'] },
    expect: 'allowed',
  },
  {
    why: 'a trailing dot is the same host (granted)',
    url: 'https://a.test./',
    rules: { grants: ['https://a.test'] },
    expect: 'allowed',
  },
  {
    why: 'a trailing dot does not escape a deny',
    url: 'https://evil.test./',
    rules: { mode: 'off', deny: ['evil.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'mixed case does not escape a deny',
    url: 'https://EVIL.test/',
    rules: { mode: 'off', deny: ['*.evil.test', 'evil.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'an IDN homograph is its punycode, not the Latin name',
    url: 'https://аpple.com/',
    rules: { grants: ['apple.com'] },
    expect: 'site_not_granted',
  },
  {
    why: 'an IDN grant matches its punycode form',
    url: 'https://xn--bcher-kva.test/',
    rules: { grants: ['bücher.test'] },
    expect: 'allowed',
  },
  {
    why: 'a decimal IPv4 is the dotted address (deny)',
    url: 'http://2130706433/',
    rules: { mode: 'off', deny: ['127.0.0.1'] },
    expect: 'site_blocked',
  },
  {
    why: 'an octal IPv4 is the dotted address',
    url: 'http://0177.0.0.1/',
    rules: { mode: 'off', deny: ['127.0.0.1'] },
    expect: 'site_blocked',
  },
  {
    why: 'a hex IPv4 is the dotted address',
    url: 'http://0x7f.0x0.0.1/',
    rules: { mode: 'off', deny: ['127.0.0.1'] },
    expect: 'site_blocked',
  },
  {
    why: 'a short IPv4 is the dotted address',
    url: 'http://127.1/',
    rules: { mode: 'off', deny: ['127.0.0.1'] },
    expect: 'site_blocked',
  },
  {
    why: 'IPv4-mapped IPv6 is the IPv4 address',
    url: 'http://[::ffff:127.0.0.1]/',
    rules: { mode: 'off', deny: ['127.0.0.1'] },
    expect: 'site_blocked',
  },
  {
    why: 'IPv4-mapped IPv6 in hex is the IPv4 address',
    url: 'http://[::ffff:7f00:1]:8080/',
    rules: { grants: ['http://127.0.0.1:8080'] },
    expect: 'allowed',
  },
  {
    why: '0.0.0.0 is not 127.0.0.1',
    url: 'http://0.0.0.0/',
    rules: { grants: ['127.0.0.1'] },
    expect: 'site_not_granted',
  },
  {
    why: 'data: never names a site',
    url: 'data:text/html,<script>location="https://evil.test"</script>',
    rules: { mode: 'off' },
    expect: 'site_blocked',
  },
  {
    why: 'blob: never names a site, even a granted one',
    url: 'blob:https://a.test/5a4e',
    rules: { grants: ['https://a.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'javascript: is refused',
    url: 'javascript:location="https://evil.test"',
    rules: { mode: 'off' },
    expect: 'site_blocked',
  },
  { why: 'file: is refused', url: 'file:///etc/passwd', rules: { mode: 'off' }, expect: 'site_blocked' },
  { why: 'chrome: is refused', url: 'chrome://settings', rules: { mode: 'off' }, expect: 'site_blocked' },
  {
    why: 'view-source: is refused',
    url: 'view-source:https://a.test/',
    rules: { grants: ['https://a.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'a banking site is blocked in off mode',
    url: 'https://secure.chase.com/',
    rules: { mode: 'off' },
    expect: 'site_blocked',
  },
  {
    why: 'a category site granted by name opens',
    url: 'https://www.paypal.com/',
    rules: { grants: ['www.paypal.com'] },
    expect: 'allowed',
  },
  {
    why: 'a category look-alike is not the category',
    url: 'https://notchase.com/',
    rules: { mode: 'off' },
    expect: 'allowed',
  },
  {
    why: 'deny wins over a grant',
    url: 'https://a.test/',
    rules: { grants: ['a.test'], deny: ['https://a.test'] },
    expect: 'site_blocked',
  },
  {
    why: 'allow-listed ignores grants',
    url: 'https://a.test/',
    rules: { mode: 'allow-listed', grants: ['a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'allow-listed takes sites.allow',
    url: 'https://docs.a.test/',
    rules: { mode: 'allow-listed', allow: ['*.a.test'] },
    expect: 'allowed',
  },
  {
    why: 'the shared origin is allowed on the user tab',
    url: 'https://app.test/next',
    rules: {},
    shared: 'https://app.test',
    expect: 'allowed',
  },
  {
    why: 'the shared origin does not cover its subdomains',
    url: 'https://x.app.test/',
    rules: {},
    shared: 'https://app.test',
    expect: 'site_not_granted',
  },
  {
    why: 'a bare host allows both schemes, any port',
    url: 'http://a.test:8080/',
    rules: { grants: ['a.test'] },
    expect: 'allowed',
  },
  {
    why: 'a scheme-bound pattern keeps its scheme',
    url: 'http://mail.a.test/',
    rules: { grants: ['https://*.a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'backslashes are slashes to WHATWG URL',
    url: 'https:\\\\evil.test\\@a.test/',
    rules: { grants: ['a.test'] },
    expect: 'site_not_granted',
  },
  {
    why: 'a tab in the host is stripped, not a new host',
    url: 'https://a.te\tst/',
    rules: { grants: ['a.test'] },
    expect: 'allowed',
  },
];

describe('site policy: URL parsing and host patterns', () => {
  it(`decides ${CASES.length} URL and scheme cases, none of them widening a grant`, () => {
    const wrong: string[] = [];
    for (const c of CASES) {
      const decision = new SiteRules(policy(c.rules)).decideUrl(c.url, c.shared);
      const got = decision.allowed ? 'allowed' : decision.code;
      if (got !== c.expect) wrong.push(`${c.why}: ${c.url} → ${got}, expected ${c.expect}`);
    }
    assert.deepEqual(wrong, []);
    assert.ok(CASES.length >= 25);
  });

  it('refuses site rules looser than an origin, a host or a *. pattern', () => {
    for (const raw of [
      '*',
      '*.com',
      'a.*.test',
      '*a.test',
      'https://a.test/path',
      'https://user@a.test',
      'ftp://a.test',
      'a.test:8080',
      '*.127.0.0.1',
      '*.a.test:443',
      'https://a.test?x',
      '',
    ]) {
      assert.equal(parseSitePattern(raw).ok, false, raw);
    }
  });

  it('writes rules back in one canonical form', () => {
    assert.deepEqual(
      ['HTTPS://Mail.A.Test:443/', 'A.TEST.', '*.Bücher.test', 'http://[::ffff:127.0.0.1]:8080'].map((raw) =>
        normalizeSitePattern(raw),
      ),
      [
        { ok: true, value: 'https://mail.a.test' },
        { ok: true, value: 'a.test' },
        { ok: true, value: '*.xn--bcher-kva.test' },
        { ok: true, value: 'http://127.0.0.1:8080' },
      ],
    );
  });

  it('names the rule that refused, which the code alone does not tell', () => {
    const rules = (over: Partial<SitePolicy>) => new SiteRules(policy({ deny: ['evil.test'], ...over }));
    const ruleOf = (decision: ReturnType<SiteRules['decideUrl']>) =>
      decision.allowed ? 'allowed' : `${decision.code} ${decision.rule}`;
    assert.deepEqual(
      [
        rules({}).decideUrl('https://evil.test/'),
        rules({ grants: ['evil.test'] }).decideUrl('https://evil.test/'),
        rules({}).decideUrl('https://chase.com/'),
        rules({}).decideUrl('https://elsewhere.test/'),
        rules({ mode: 'allow-listed' }).decideUrl('https://elsewhere.test/'),
        rules({}).decideUrl('not a url'),
      ].map(ruleOf),
      [
        'site_blocked denied',
        'site_blocked denied',
        'site_blocked high_risk',
        'site_not_granted not_granted',
        'site_not_granted not_allowed',
        'site_blocked not_a_site',
      ],
    );
  });

  it('reads a refusal rule carried with it, else the one its code names by itself', () => {
    assert.equal(refusalRule('site_blocked', 'high_risk'), 'high_risk');
    assert.equal(refusalRule('site_blocked', 'made_up'), undefined);
    assert.equal(refusalRule('site_blocked'), undefined);
    assert.equal(refusalRule('metadata_url_blocked'), 'metadata');
    assert.equal(refusalRule('private_url_blocked'), 'private_address');
    assert.equal(refusalRule('domain_changed'), 'domain_changed');
    assert.equal(refusalRule('navigation_failed'), undefined);
  });

  it('names the origin and how to grant it when refusing', () => {
    const decision = new SiteRules(policy({})).decideUrl('https://Mail.Example.com./inbox');
    assert.equal(decision.allowed, false);
    assert.ok(!decision.allowed);
    assert.equal(decision.origin, 'https://mail.example.com');
    assert.match(decision.reason, /tabgate grants add/);
    assert.match(decision.reason, /extension/);
  });

  it('blocks every domain of the built-in categories until granted', () => {
    const rules = new SiteRules(policy({ mode: 'off' }));
    const domains = Object.values(SITE_CATEGORIES).flat();
    assert.ok(domains.length >= 55, `${domains.length} domains`);
    const open = domains.filter((domain) => rules.decideUrl(`https://${domain}/`).allowed);
    assert.deepEqual(open, []);
    assert.equal(
      new SiteRules(policy({ mode: 'off', blockedCategories: [] })).decideUrl('https://chase.com').allowed,
      true,
    );
  });

  it('parses a URL into its canonical origin', () => {
    const parsed = parseSiteUrl('HTTP://[::FFFF:7F00:1]:80/x');
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.site, {
      scheme: 'http:',
      host: '127.0.0.1',
      port: 80,
      origin: 'http://127.0.0.1',
    });
  });
});
