/**
 * The page side of the engine, part 3: link targets (`→ target` after a link). `full: true` shows each
 * target whole. Compact mode shows one only where it tells the agent something (another origin, or a
 * path the link's text does not already say), shortened to what tells the frame's links apart: tracking
 * parameters, parameters every link shares and long opaque values go, and links of one pattern
 * (`/page2?n=0`, `/page2?n=1`) show it once. Since that depends on every link
 * of the frame, the walk writes a marker (`\u0006<n>\u0007`) and `settle` decides once the walk is done;
 * two different links never end up looking the same (both then keep their whole target). Self-contained
 * like the rest of `page/`.
 */
import type { AgentState } from './agent-state.js';

export function installLinkTargets(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  const names = state?.names;
  if (!state || !names || state.links) return;
  const { cap, clean } = names;

  const FULL_MAX = 2_000;
  const WHOLE_MAX = 300;
  const SHORT_MAX = 100;
  const VALUE_MAX = 40;
  // Parameters that only say where a click came from: the page behind the link is the same without them.
  const TRACKING =
    /^(utm_\w+|fbclid|gclid|gclsrc|dclid|gbraid|wbraid|msclkid|mc_cid|mc_eid|_ga|_gl|igshid|yclid|twclid|ttclid|li_fat_id|_hsenc|_hsmi|mkt_tok)$/i;

  let full = false;
  let found: { url: URL; name: string }[] = [];

  /** The target as the page has it: a path on the frame's own origin, else the absolute URL. */
  const whole = (url: URL, max: number) =>
    cap(clean(url.origin === location.origin ? url.pathname + url.search + url.hash : url.href), max);

  const readable = (text: string) =>
    encodeURIComponent(text).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%2C/gi, ',');

  // A redirect's embedded address says where the link really goes; a long opaque token (a signature, a
  // click id) at most that the link differs from another: `tokens` keeps its start, else it goes.
  const briefValue = (value: string, tokens: boolean): string | null => {
    if (/^https?:\/\//i.test(value)) {
      try {
        const inner = new URL(value);
        return cap(inner.host.replace(/^www\./, '') + inner.pathname.replace(/\/$/, ''), 60);
      } catch {
        // Not a URL after all: treat it as any other value.
      }
    }
    if (value.length <= VALUE_MAX) return readable(value);
    return tokens ? readable(value.slice(0, 16)) + '…' : null;
  };

  const brief = (url: URL, shared: (key: string, value: string) => boolean, tokens: boolean): string => {
    // mailto:, tel:, data: and the like have nothing that is safe to leave out.
    if (!/^https?:$/.test(url.protocol)) return cap(clean(url.href), SHORT_MAX);
    const own = url.origin === location.origin;
    const host = own ? '' : (url.protocol === 'https:' ? '' : 'http://') + url.host.replace(/^www\./, '');
    const kept: string[] = [];
    for (const [key, value] of url.searchParams) {
      if (TRACKING.test(key) || shared(key, value)) continue;
      const shown = value === '' ? '' : briefValue(value, tokens);
      if (shown !== null) kept.push(readable(key) + (shown === '' ? '' : '=' + shown));
    }
    const query = kept.length > 0 ? '?' + kept.join('&') : '';
    const path = host && url.pathname === '/' && !query ? '' : url.pathname;
    const hash = url.hash.length > 30 ? url.hash.slice(0, 29) + '…' : url.hash;
    return cap(clean(host + path + query + hash), SHORT_MAX);
  };

  // The link's own text already says where it goes (`example.com/docs`, `/pricing`).
  const bare = (text: string) =>
    text
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/$/, '');
  const wordsOf = (text: string) =>
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const saidBy = (name: string, url: URL, shown: string) => {
    const text = bare(name);
    if (text === '') return false;
    if (text === bare(shown) || text === bare(url.host + url.pathname)) return true;
    // A target on the frame's own origin whose every word the link's text already says (`menu item 3`
    // → `/menu/3`, `Story 3 headline` → `/story/3`) tells the agent nothing more; `/` is kept (home).
    if (url.origin !== location.origin || shown.includes('://')) return false;
    let decoded = shown;
    try {
      decoded = decodeURIComponent(shown);
    } catch {
      // A malformed escape: judge the words as written.
    }
    const said = new Set(wordsOf(name));
    const words = wordsOf(decoded);
    return words.length > 0 && words.every((word) => said.has(word));
  };

  // Links whose targets follow one pattern (`/page2?n=0`, `/page2?n=1`, …; the same target once its
  // numbers are set aside) differ only where their targets differ. The first shown link of the pattern
  // keeps its target to show the pattern; a later one leaves its target out when its text says every
  // word in which its target differs from the pattern's others (`L3` → `/page2?n=3`, `2` →
  // `/list?page=2`). Words here are runs of letters or of digits, so `L3` says `3`.
  const runsOf = (text: string) => text.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? [];
  const dropPatternTargets = (links: { url: URL; name: string }[], shown: string[]) => {
    const patterns = new Map<string, number[]>();
    links.forEach((link, i) => {
      const target = shown[i];
      if (!target || link.url.origin !== location.origin || target.includes('://')) return;
      const pattern = target.replace(/\p{N}+/gu, '#');
      const members = patterns.get(pattern) ?? [];
      members.push(i);
      patterns.set(pattern, members);
    });
    for (const members of patterns.values()) {
      const targets = new Set(members.map((i) => shown[i] ?? ''));
      if (targets.size < 2) continue;
      const wordSets = [...targets].map((target) => new Set(runsOf(target)));
      const common = [...(wordSets[0] ?? [])].filter((word) => wordSets.every((set) => set.has(word)));
      for (const i of members.slice(1)) {
        const target = shown[i] ?? '';
        if (target === shown[members[0] ?? -1]) continue;
        const said = new Set(runsOf(links[i]?.name ?? ''));
        if (runsOf(target).every((word) => common.includes(word) || said.has(word))) shown[i] = '';
      }
    }
  };

  const settleTargets = (links: { url: URL; name: string }[]): string[] => {
    // Parameters with one value on every distinct link that carries them (a session, a language, a
    // campaign) tell none of those links apart; parameters that differ between links stay.
    const keys = new Map<string, number>();
    const pairs = new Map<string, number>();
    for (const href of new Set(links.map((link) => link.url.href))) {
      const params = new URL(href).searchParams;
      for (const key of new Set(params.keys())) keys.set(key, (keys.get(key) ?? 0) + 1);
      for (const pair of new Set([...params].map(([key, value]) => key + '=' + value)))
        pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
    }
    const shared = (key: string, value: string) => {
      const count = keys.get(key) ?? 0;
      return count >= 2 && pairs.get(key + '=' + value) === count;
    };
    // Each link starts at its shortest form; links that would look the same but go to different places
    // step up together (opaque tokens' starts, then the whole target) until no two share a shown target.
    const forms = (url: URL) => [brief(url, shared, false), brief(url, shared, true), whole(url, WHOLE_MAX)];
    const levels = links.map(() => 0);
    const shown = links.map(({ url, name }) => {
      const short = forms(url)[0] ?? '';
      return saidBy(name, url, short) ? '' : short;
    });
    // Links left without a target must still be told apart by their names: where one name stands for
    // several destinations, those links show their targets after all.
    const unshown = new Map<string, Set<string>>();
    links.forEach((link, i) => {
      if (shown[i]) return;
      const set = unshown.get(link.name) ?? new Set<string>();
      set.add(link.url.href);
      unshown.set(link.name, set);
    });
    links.forEach((link, i) => {
      if (!shown[i] && (unshown.get(link.name)?.size ?? 0) > 1) shown[i] = forms(link.url)[0] ?? '';
    });
    for (let changed = true; changed;) {
      changed = false;
      const hrefs = new Map<string, Set<string>>();
      links.forEach((link, i) => {
        const target = shown[i];
        if (!target) return;
        const set = hrefs.get(target) ?? new Set<string>();
        set.add(link.url.href);
        hrefs.set(target, set);
      });
      links.forEach((link, i) => {
        const target = shown[i];
        const level = levels[i] ?? 0;
        if (!target || (hrefs.get(target)?.size ?? 0) < 2 || level >= 2) return;
        const all = forms(link.url);
        // The next form that says more; equal forms are skipped.
        let next = level + 1;
        while (next < 2 && all[next] === target) next++;
        levels[i] = next;
        shown[i] = all[next] ?? target;
        changed = true;
      });
    }
    // Only once every shown target tells its link apart can a pattern's later links leave theirs out;
    // one of them named like another link without a target, elsewhere, keeps its target after all.
    const before = [...shown];
    dropPatternTargets(links, shown);
    const nameless = new Map<string, Set<string>>();
    links.forEach((link, i) => {
      if (shown[i]) return;
      const set = nameless.get(link.name) ?? new Set<string>();
      set.add(link.url.href);
      nameless.set(link.name, set);
    });
    links.forEach((link, i) => {
      if (!shown[i] && before[i] && (nameless.get(link.name)?.size ?? 0) > 1) shown[i] = before[i];
    });
    return shown;
  };

  state.links = {
    begin(fullMode) {
      full = fullMode;
      found = [];
    },
    mark(el, name) {
      const raw = (el.getAttribute('href') ?? '').trim();
      // A link within the page: its fragment says more than the page's own path would (`#` is a script's).
      if (raw.startsWith('#')) return ' → ' + cap(clean(raw), SHORT_MAX);
      const href = (el as HTMLAnchorElement).href;
      if (!href || /^javascript:/i.test(href)) return '';
      let url: URL;
      try {
        url = new URL(href);
      } catch {
        return '';
      }
      if (full) return ' → ' + whole(url, FULL_MAX);
      found.push({ url, name });
      return '\u0006' + (found.length - 1) + '\u0007';
    },
    settle(text) {
      if (found.length === 0) return text;
      const shown = settleTargets(found);
      found = [];
      // eslint-disable-next-line no-control-regex -- our own markers
      return text.replace(/\u0006(\d+)\u0007/g, (_match, i: string) => {
        const target = shown[Number(i)];
        return target ? ' → ' + target : '';
      });
    },
  };
}
