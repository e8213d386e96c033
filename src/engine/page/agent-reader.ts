/**
 * The page side of the engine, part 5: the reader behind `browser_read`. It finds the page's main
 * content the way reader modes do (the `<main>` or `<article>` that holds the text, else the block whose
 * paragraphs hold the most text that is not links) and writes it as clean text: headings, paragraphs,
 * lists, tables, quotes and `<pre>` kept in place, links inline as `[text](@eN)` so they stay clickable,
 * boilerplate (navigation, banners, sidebars, forms, comment and share blocks, link lists) left out.
 * Refs are the snapshot's markers (`\u0001<id>\u0002`), minted by the engine, and each link is bracketed
 * `\u0004…\u0005` so a page is never cut inside one. Self-contained (serialised).
 */
import type { AgentState } from './agent-state.js';

export function installReader(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  if (!state || state.read) return;

  const SKIP = new Set([
    'SCRIPT',
    'STYLE',
    'NOSCRIPT',
    'TEMPLATE',
    'HEAD',
    'IFRAME',
    'SVG',
    'CANVAS',
    'FORM',
    'BUTTON',
    'INPUT',
    'SELECT',
    'TEXTAREA',
    'NAV',
    'ASIDE',
    'FOOTER',
    'DIALOG',
    'IMG',
    'VIDEO',
    'AUDIO',
    'OBJECT',
  ]);
  const BOILERPLATE_ROLES =
    /^(navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar)$/;
  const BOILERPLATE_NAMES =
    /(^|[-_ ])(comments?|sidebar|share|sharing|social|related|recommended|promo|advert|ads?|cookie|newsletter|subscribe|breadcrumbs?|footer|masthead|menu|popup|modal)([-_ ]|$)/i;
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|flow-root)/;
  // eslint-disable-next-line no-control-regex -- page text must not carry our marker characters
  const SPACES = /[\s\u0000-\u001f\u007f-\u009f]+/g;
  // eslint-disable-next-line no-control-regex -- the same, keeping spaces as they are
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  const MAX_OUTPUT = 2_000_000;
  const BLOCKS_IN_LINK =
    'p, div, h1, h2, h3, h4, h5, h6, li, ul, ol, table, pre, blockquote, section, article, br';

  const textLength = (el: Element) => (el.textContent ?? '').replace(SPACES, ' ').trim().length;
  const linkLength = (el: Element) => {
    let sum = 0;
    for (const a of el.querySelectorAll('a')) sum += textLength(a);
    return sum;
  };
  const boilerplate = (el: Element) => {
    if (el.tagName === 'HEADER' && !el.closest('article')) return true;
    const role = el.getAttribute('role') ?? '';
    if (BOILERPLATE_ROLES.test(role)) return true;
    const label = `${el.id} ${typeof el.className === 'string' ? el.className : ''}`;
    return label.trim() !== '' && BOILERPLATE_NAMES.test(label);
  };

  /** The element holding the article: a `<main>`/`<article>` with most of the text, else the best-scored block. */
  const mainContent = (): Element => {
    const body = document.body ?? document.documentElement;
    const scores = new Map<Element, number>();
    for (const p of body.querySelectorAll('p, pre, blockquote, li')) {
      const length = textLength(p);
      if (length < 25 || p.closest('nav, aside, footer, form')) continue;
      const links = linkLength(p);
      const score = (length - links) / 100 + 1;
      let parent = p.parentElement;
      for (let level = 1; parent && level <= 3; level++, parent = parent.parentElement) {
        scores.set(parent, (scores.get(parent) ?? 0) + score / level);
      }
    }
    let best: Element = body;
    let bestScore = 0;
    for (const [el, score] of scores) {
      if (score > bestScore) {
        best = el;
        bestScore = score;
      }
    }
    // A semantic container around the best block holds its headline and lead too.
    const semantic = best.closest('article, main, [role=main], [itemprop=articleBody]');
    return semantic ?? best;
  };

  state.read = (): string => {
    const lines: string[] = [];
    let size = 0;
    let line = '';
    let prefix = '';
    const flush = () => {
      const text = line.replace(/ +/g, ' ').trim();
      if (text) {
        lines.push(prefix + text);
        size += prefix.length + text.length + 1;
      }
      line = '';
      prefix = '';
    };
    const addText = (raw: string) => {
      const text = raw.replace(SPACES, ' ');
      line += line === '' || line.endsWith(' ') ? text.replace(/^ /, '') : text;
    };
    const walk = (node: Node, listDepth: number): void => {
      if (size > MAX_OUTPUT) return;
      if (node.nodeType === Node.TEXT_NODE) {
        addText((node as Text).data);
        return;
      }
      if (!(node instanceof Element) || SKIP.has(node.tagName.toUpperCase())) return;
      const el = node;
      if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('hidden')) return;
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return;
      if (boilerplate(el)) return;
      const tag = el.tagName;
      const heading = /^H([1-6])$/.exec(tag);
      if (heading) {
        flush();
        prefix = '#'.repeat(Number(heading[1])) + ' ';
        for (const kid of el.childNodes) walk(kid, listDepth);
        flush();
        return;
      }
      if (tag === 'PRE') {
        flush();
        const raw = (el.textContent ?? '')
          .replace(/\t/g, '    ')
          .replace(/\r\n?/g, '\n')
          .replace(CONTROLS, '');
        for (const part of raw.replace(/\n+$/, '').split('\n')) lines.push(part);
        return;
      }
      if (tag === 'BR') {
        flush();
        return;
      }
      if (tag === 'UL' || tag === 'OL') {
        flush();
        // A list made mostly of links is a menu or a "more stories" block, not the article.
        const length = textLength(el);
        if (length > 0 && linkLength(el) / length > 0.6 && el.querySelectorAll('li').length > 3) return;
        let index = 0;
        for (const kid of el.children) {
          if (kid.tagName !== 'LI') continue;
          index++;
          flush();
          prefix = '  '.repeat(listDepth) + (tag === 'OL' ? `${index}. ` : '- ');
          for (const inner of kid.childNodes) walk(inner, listDepth + 1);
          flush();
        }
        return;
      }
      if (tag === 'A' && el.hasAttribute('href')) {
        const ref = `\u0001${state.idOf(el)}\u0002`;
        // A link around whole blocks (a teaser) keeps its text as blocks, its ref after them.
        if (el.querySelector(BLOCKS_IN_LINK)) {
          const mark = lines.length;
          for (const kid of el.childNodes) walk(kid, listDepth);
          if (line.trim() !== '') line = line.trimEnd() + ` \u0004(${ref})\u0005`;
          else if (lines.length > mark) lines[lines.length - 1] += ` \u0004(${ref})\u0005`;
          return;
        }
        const before = line;
        line += line === '' || line.endsWith(' ') ? '\u0004[' : ' \u0004[';
        const opened = line.length;
        for (const kid of el.childNodes) walk(kid, listDepth);
        if (line.slice(opened).trim() === '') line = before;
        else line = line.trimEnd() + `](${ref})\u0005`;
        return;
      }
      if (tag === 'TD' || tag === 'TH') {
        if (line.trim() !== '') line += ' | ';
        for (const kid of el.childNodes) walk(kid, listDepth);
        return;
      }
      const block = BLOCK.test(style.display) || tag === 'P' || tag === 'TR';
      if (block) flush();
      if (tag === 'BLOCKQUOTE') prefix = '> ';
      for (const kid of el.childNodes) walk(kid, listDepth);
      if (block) flush();
    };
    const root = mainContent();
    const title = document.querySelector('h1');
    // The headline often sits outside the article's text block.
    if (title && !root.contains(title) && textLength(title) > 0) walk(title, 0);
    walk(root, 0);
    flush();
    return lines.join('\n');
  };
}
