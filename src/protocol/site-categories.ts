/**
 * Well-known sites where one wrong click moves money or exposes a person: blocked until the owner grants
 * one of them by name (docs/safety.md, "High-risk categories"). A site matches its domain and every
 * subdomain of it. Not a complete list and never meant to be: it catches the obvious targets of an
 * injected "go to your bank"; `safety.sites.deny` adds a person's own.
 */
export const SITE_CATEGORIES = {
  banking: [
    'chase.com',
    'bankofamerica.com',
    'wellsfargo.com',
    'citi.com',
    'citibank.com',
    'capitalone.com',
    'usbank.com',
    'hsbc.com',
    'barclays.co.uk',
    'lloydsbank.com',
    'natwest.com',
    'santander.com',
    'bnpparibas.com',
    'deutsche-bank.de',
    'ing.com',
    'revolut.com',
    'monzo.com',
    'n26.com',
    'chime.com',
  ],
  payments: [
    'paypal.com',
    'venmo.com',
    'stripe.com',
    'wise.com',
    'cash.app',
    'zellepay.com',
    'westernunion.com',
    'klarna.com',
    'affirm.com',
    'afterpay.com',
    'pay.google.com',
  ],
  investing: [
    'fidelity.com',
    'schwab.com',
    'vanguard.com',
    'robinhood.com',
    'etrade.com',
    'interactivebrokers.com',
    'tdameritrade.com',
    'merrilledge.com',
    'etoro.com',
    'trading212.com',
  ],
  crypto: [
    'coinbase.com',
    'binance.com',
    'kraken.com',
    'crypto.com',
    'gemini.com',
    'bitstamp.net',
    'kucoin.com',
    'bybit.com',
    'okx.com',
    'metamask.io',
    'blockchain.com',
  ],
  gambling: [
    'bet365.com',
    'draftkings.com',
    'fanduel.com',
    'pokerstars.com',
    'betfair.com',
    'williamhill.com',
    'stake.com',
    'betmgm.com',
  ],
  adult: ['pornhub.com', 'xvideos.com', 'xhamster.com', 'xnxx.com', 'onlyfans.com', 'chaturbate.com'],
} as const satisfies Record<string, readonly string[]>;

export type SiteCategory = keyof typeof SITE_CATEGORIES;

export const SITE_CATEGORY_NAMES = Object.keys(SITE_CATEGORIES) as SiteCategory[];

const DOMAIN_CATEGORY = new Map<string, SiteCategory>(
  SITE_CATEGORY_NAMES.flatMap((category) =>
    SITE_CATEGORIES[category].map((domain) => [domain, category] as const),
  ),
);

/** The category a host belongs to (itself or a parent domain listed), if any. */
export function categoryOfHost(host: string): { category: SiteCategory; domain: string } | undefined {
  // Walk up the labels: a Map lookup per label, whatever the list's length.
  let rest = host;
  for (;;) {
    const category = DOMAIN_CATEGORY.get(rest);
    if (category) return { category, domain: rest };
    const dot = rest.indexOf('.');
    if (dot < 0) return undefined;
    rest = rest.slice(dot + 1);
  }
}
