/**
 * Pages of `bench:engine`'s goals table, modelled on what real news, encyclopedia and shop pages do:
 * an article inside a clickable container between a heavy masthead, sidebars and footer (every sentence
 * known, for browser_read), and a portal long enough for six or more snapshot answers whose search box
 * sits at the bottom (for the first answer's outline). Each page says how many controls it has.
 */
export interface GoalPage {
  html: string;
  controls: number;
  sentences?: string[];
}

const doc = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const links = (prefix: string, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<li><a href="/${prefix}/${i}?utm_source=home">${prefix} item ${i}</a></li>`,
  ).join('');

function article(): GoalPage {
  const sentences = Array.from(
    { length: 60 },
    (_, i) =>
      `Sentence ${i + 1} of the report says that the ${['river', 'forest', 'harbour', 'valley'][i % 4]} survey counted ${i * 7 + 3} animals in its ${i + 1}th week.`,
  );
  const paragraphs = [];
  for (let i = 0; i < sentences.length; i += 3) {
    const [a, b, c] = sentences.slice(i, i + 3);
    paragraphs.push(
      `<p>${a} ${b?.replace('survey', '<a href="/survey">survey</a>')} ${c?.replace('animals', 'ani<em>mals</em>')}</p>`,
    );
    if (i % 15 === 12) paragraphs.push(`<h2>Part ${Math.floor(i / 15) + 1}</h2>`);
  }
  const html = doc(
    'Report',
    `<header><a href="/">Daily</a><nav><ul>${links('section', 120)}</ul></nav>
      <form role="search"><input type="search" aria-label="Search"></form><button>Sign in</button></header>
    <main><div tabindex="0" class="story">
      <h1>The survey is out</h1>${paragraphs.join('')}
      <div class="share"><button>Share</button><button>Tweet</button></div>
    </div></main>
    <aside><h2>Most read</h2><ul>${links('popular', 40)}</ul></aside>
    <footer><ul>${links('footer', 60)}</ul></footer>`,
  );
  const linksInText = sentences.length / 3;
  // The story's focusable container counts too: a clickable container keeps its ref.
  return { html, controls: 120 + 3 + 1 + linksInText + 2 + 40 + 60, sentences };
}

function portal(): GoalPage {
  const sections = Array.from(
    { length: 12 },
    (_, i) =>
      `<section aria-label="Topic ${i}"><h2>Topic ${i}</h2><ul>${links(`topic${i}`, 60)}</ul></section>`,
  ).join('');
  const html = doc(
    'Portal',
    `<nav aria-label="Main"><ul>${links('menu', 30)}</ul></nav><main><h1>Everything</h1>${sections}</main>
    <footer><form role="search"><input type="search" aria-label="Search the portal"><button>Go</button></form></footer>`,
  );
  return { html, controls: 30 + 12 * 60 + 2 };
}

export const GOAL_PAGES: Record<string, GoalPage> = {
  '/goals/article': article(),
  '/goals/portal': portal(),
};
