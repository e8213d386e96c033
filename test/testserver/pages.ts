/**
 * The pages of the test site, as HTML strings keyed by path. `other` is the origin of the second server,
 * used for cross-origin (out-of-process) iframes.
 */
const page = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

const TRUSTED_LOG = `<script>
  const log = (text) => { document.getElementById('out').textContent = text; };
</script>`;

import { TASK_PAGES } from './task-pages.js';

/** The title of `/long-title`: long enough to wrap any line that shows it, as some shops' titles do. */
export const LONG_TITLE =
  `Checkout ${'and a very long product name with every option spelled out '.repeat(4)}`.trim();

export function pages(other: string): Record<string, string> {
  const rows = Array.from(
    { length: 1000 },
    (_, i) =>
      `<tr><td>Item ${i + 1}</td><td>$${(i * 1.37).toFixed(2)}</td><td><button onclick="buy(${i + 1})">Buy</button></td></tr>`,
  ).join('');
  const paragraphs = Array.from(
    { length: 40 },
    (_, i) =>
      `<p>Paragraph ${i + 1} of the article talks about browsers, agents and the web at some length, so that the text is long enough to matter when a snapshot is measured and clipped for the reader.</p>`,
  ).join('');
  return {
    ...TASK_PAGES,
    '/long-title': page(LONG_TITLE, '<h1>Long title</h1>'),
    '/form': page(
      'Test form',
      `<h1>Test form</h1>
      <form action="/thanks" method="get">
        <label for="name">Your name</label> <input id="name" name="name" placeholder="type here">
        <label>Email <input name="email" type="email"></label>
        <label>Password <input name="password" type="password"></label>
        <label>Country <select name="country"><option>France</option><option>Germany</option><option>Spain</option></select></label>
        <label><input type="checkbox" name="agree"> I agree</label>
        <textarea name="notes" aria-label="Notes"></textarea>
        <button type="submit">Send</button>
      </form>
      <button id="check" onclick="log('clicked trusted=' + event.isTrusted)">Check trust</button>
      <a href="/page2">Go to page 2</a>
      <div id="out">nothing yet</div>
      <div id="keys"></div>
      ${TRUSTED_LOG}
      <script>
        document.addEventListener('keydown', (e) => {
          document.getElementById('keys').textContent += ' ' + e.key + (e.ctrlKey ? '+ctrl' : '') + ':' + e.isTrusted;
        });
        document.getElementById('name').addEventListener('input', (e) => log('input trusted=' + e.isTrusted));
      </script>`,
    ),
    '/payment': page(
      'Payment',
      `<h1>Payment</h1>
      <label>Card number <input name="card" autocomplete="cc-number"></label>
      <label>Security code <input name="cvc" autocomplete="cc-csc"></label>
      <label>Code from the app <input name="otp" autocomplete="one-time-code"></label>
      <label>Name on card <input name="holder" autocomplete="cc-name"></label>`,
    ),
    '/thanks': page(
      'Thanks',
      `<h1>Thanks</h1><p id="who"></p><script>document.getElementById('who').textContent = 'Hello ' + new URLSearchParams(location.search).get('name');</script>`,
    ),
    '/page2': page('Page two', `<h1>Page two</h1><a href="/form">Back to the form</a>`),
    '/frames': page(
      'Frames',
      `<h1>Frames</h1>
      <iframe title="Same origin" src="/inner?label=same" width="400" height="150"></iframe>
      <iframe title="Cross origin" src="${other}/inner?label=cross" width="400" height="150"></iframe>`,
    ),
    // A green block inside each kind of iframe, away from the frame's corner and inside a border, so
    // an element screenshot that misplaces it by any of these shows white or blue instead.
    '/frame-shot': page(
      'Frame shot',
      `<style>body { margin: 0; } iframe { display: block; margin: 30px 0 0 70px; border: 3px solid #00f; }</style>
      <div style="height: 40px"></div>
      <iframe title="Same origin" src="/frame-shot-inner" width="300" height="120"></iframe>
      <iframe title="Cross origin" src="${other}/frame-shot-inner" width="300" height="120"></iframe>`,
    ),
    '/frame-shot-inner': page(
      'Frame shot inner',
      `<style>body { margin: 0; background: #fff; }</style>
      <button aria-label="Green block" style="margin: 20px 0 0 30px; width: 120px; height: 40px; border: 0; background: #0a0; font-size: 0">.</button>`,
    ),
    '/inner': page(
      'Inner',
      `<p>Inside a frame</p><button onclick="document.getElementById('r').textContent = 'inner clicked trusted=' + event.isTrusted">Inner button</button>
      <input aria-label="Inner field"><span id="r"></span>`,
    ),
    '/shadow': page(
      'Shadow',
      `<h1>Shadow DOM</h1><x-widget></x-widget><div id="out"></div>
      <script>
        customElements.define('x-widget', class extends HTMLElement {
          connectedCallback() {
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = '<label>Shadow field <input id="f"></label><button>Shadow button</button>';
            root.querySelector('button').addEventListener('click', (e) => {
              document.getElementById('out').textContent = 'shadow clicked ' + root.getElementById('f').value + ' trusted=' + e.isTrusted;
            });
          }
        });
      </script>`,
    ),
    '/popup': page(
      'Popups',
      `<h1>Popups</h1><a href="/page2" target="_blank">Open page 2 in a new tab</a>
      <button onclick="window.open('/thanks?name=popup')">Open a popup</button>`,
    ),
    '/dialogs': page(
      'Dialogs',
      `<h1>Dialogs</h1>
      <button onclick="alert('Hello from alert'); document.getElementById('out').textContent = 'after alert'">Alert</button>
      <button onclick="document.getElementById('out').textContent = 'confirm=' + confirm('Sure?')">Confirm</button>
      <button onclick="document.getElementById('out').textContent = 'prompt=' + prompt('Name?')">Prompt</button>
      <div id="out">none</div>`,
    ),
    '/long': page(
      'Long page',
      `<h1>Long page</h1>${Array.from({ length: 300 }, (_, i) => `<p>Line ${i + 1}</p>`).join('')}
      <button onclick="this.textContent = 'Bottom clicked'">Bottom button</button>`,
    ),
    '/table': page(
      'Big table',
      `<h1>Price list</h1><table><tbody>${rows}</tbody></table><div id="out"></div>
      <script>function buy(n) { document.getElementById('out').textContent = 'bought ' + n; }</script>`,
    ),
    '/article': page(
      'Article',
      `<article><h1>The long article</h1><nav><a href="/page2">Related</a> <a href="/form">Contact</a></nav>
      <h2>Part one</h2>${paragraphs.slice(0, 1000)}${paragraphs}<h2>Part two</h2><p>See <a href="/page2">the next page</a> for more.</p></article>`,
    ),
    // The first pointer move pushes the button down by 200px: a press aimed before it lands on the spacer.
    '/shifting': page(
      'Shifting',
      `<h1>Shifting</h1><div id="spacer"></div><button onclick="clicks++; show()">Target</button>
      <div id="out">clicks=0 stray=0</div>
      <script>
        let clicks = 0, stray = 0, shifted = false;
        function show() { document.getElementById('out').textContent = 'clicks=' + clicks + ' stray=' + stray; }
        document.addEventListener('mousemove', () => {
          if (!shifted) { shifted = true; document.getElementById('spacer').style.height = '200px'; }
        });
        document.addEventListener('mousedown', (e) => { if (e.target.tagName !== 'BUTTON') { stray++; show(); } });
      </script>`,
    ),
    '/mutating': page(
      'Mutating',
      `<h1>Mutating</h1><div id="slot"><button id="target" onclick="count()">Target</button></div>
      <button onclick="replaceTarget()">Replace</button><div id="out">count=0</div>
      <script>
        let n = 0;
        function count() { n++; document.getElementById('out').textContent = 'count=' + n; }
        function replaceTarget() {
          const fresh = document.createElement('button');
          fresh.textContent = 'Target'; fresh.onclick = count;
          document.getElementById('slot').replaceChildren(fresh);
        }
      </script>`,
    ),
    '/covered': page(
      'Covered',
      `<h1>Covered</h1><button onclick="document.getElementById('out').textContent = 'clicked'">Hidden action</button>
      <div id="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.5)">Cookie banner</div><div id="out">no</div>`,
    ),
    // The link starts at the end of the first line and ends on the second: its box's middle is on
    // neither piece of it, but on the words around it.
    '/wrapped-link': page(
      'Wrapped link',
      `<h1>Wrapped link</h1>
      <p style="width:300px;font:16px/24px monospace;margin:0">xxxxxxxxxxxxxxxxxxxxxxxx <a href="#went" onclick="document.getElementById('out').textContent = 'followed'">go to the next page</a> yyy</p>
      <div id="out">no</div>`,
    ),
    '/images': page(
      'Images',
      `<h1>Images</h1><img src="/img/a.svg" alt="A red box"><img src="/img/b.svg" alt="">`,
    ),
    '/console': page(
      'Console',
      `<h1>Console</h1><script>
        console.log('hello', 42);
        console.warn('careful');
        setTimeout(() => { throw new Error('boom from page'); }, 0);
      </script>`,
    ),
    // Issue 14: pages whose snapshots used to lose or garble what an agent needs.
    '/snap/clickable': page(
      'Clickable chapter',
      `<h1>Chapter</h1>
      <div tabindex="0" onclick="document.getElementById('out').textContent = 'card clicked'">
        <h2>Chapter one</h2>
        <p>${'It was a bright cold day in April, and the clocks were striking thirteen. '.repeat(3)}</p>
        <p>The last sentence of the chapter stays readable.</p>
      </div>
      <div id="out">none</div>`,
    ),
    '/snap/headings': page(
      'Headings with links',
      Array.from(
        { length: 10 },
        (_, h) =>
          `<h3>Section ${h}: ${[1, 2, 3]
            .map(
              (n) =>
                `<a href="/page2?story=${h}-${n}-${'long-slug-'.repeat(6)}">Story ${h}-${n}, ${'a headline long enough to fill a line '.repeat(3)}</a>`,
            )
            .join(' and ')}</h3>`,
      ).join(''),
    ),
    '/snap/long-line': page(
      'Long line',
      `<h1>Long line</h1><p>${Array.from({ length: 600 }, (_, i) => `<a href="/page2?n=${i}">L${i}</a>`).join(' ')}</p>`,
    ),
    '/snap/inline': page(
      'Inline text',
      `<h1>Inline text</h1><p>Un<em>believ</em>able</p><p>Total: $<span>15</span>.<span>07</span></p>
      <pre><code><span>const</span> data = <span>require</span>(<span>'fs'</span>).<span>readFileSync</span>(path);
  <span>return</span> data;</code></pre>`,
    ),
    '/snap/names': page(
      'Names',
      `<h1>Names</h1>
      <a href="/page2"><span>Storm hits the coast</span><span style="display:none">Go to the next story</span><span aria-hidden="true"> »</span></a>
      <button>Save<span style="visibility:hidden"> secretly</span></button>
      <label>City<span style="display:none"> (hidden hint)</span> <input name="city"></label>`,
    ),
    '/snap/anchors': page(
      'Anchors',
      `<h1>Anchors</h1><p>One.</p><p>Two.</p><p>Three.</p>
      <a href="#">Back to top</a> <a href="#comments">Comments</a>`,
    ),
    '/snap/dialog-notice': page(
      'Dialog notice',
      `<h1>Dialog notice</h1>
      <button onclick="alert('Saved')">Alert</button> <button onclick="confirm('Leave?')">Confirm</button>`,
    ),
    '/snap/aria-hidden': page(
      'Hidden roots',
      `<h1>Hidden roots</h1>
      <header aria-hidden="true">
        <p>Welcome back <a href="/page2">Sign in</a></p>
        <div style="display:none"><a href="/form">Closed menu item</a></div>
        <ul style="max-height:0;overflow:hidden;margin:0"><li><a href="/form">Collapsed item</a></li></ul>
        <a href="/form" style="position:absolute;left:-9999px">Off-screen copy</a>
        <a href="/form" style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">Visually hidden</a>
        <button style="opacity:0">Faded</button>
      </header>
      <a href="/form" aria-hidden="true"><span aria-hidden="true">Cart</span></a>`,
    ),
    // Issue 14: link targets an agent can read; tracking URLs used to fill a third of a snapshot.
    '/snap/links': page(
      'Front page',
      `<h1>Front page</h1>${Array.from(
        { length: 20 },
        (_, i) =>
          `<article><a href="/story/${i}?utm_source=home&utm_medium=card&utm_campaign=frontpage-2026&sid=8f3a9c2e71d04b6a">Story ${i} headline</a>
          <a href="https://news.example.com/r?url=${encodeURIComponent(`https://partner.example.org/news/story-${i}?ref=front`)}&sig=${(i * 7919).toString(16).padStart(8, '0').repeat(8)}&ts=1764600000">Partner story ${i}</a></article>`,
      ).join('')}
      <nav><a href="/list?page=1&sid=8f3a9c2e71d04b6a">1</a> <a href="/list?page=2&sid=8f3a9c2e71d04b6a">2</a></nav>
      <p><a href="https://www.docs.example.com/">docs.example.com</a> <a href="/about">/about</a></p>
      <p><a href="/product?id=7&color=red">Red shoe</a> <a href="/product?id=7&color=blue">Blue shoe</a></p>
      <p><a href="/page2">Plain</a> <a href="/page2?utm_source=footer">Tracked</a></p>
      <p><a href="/go?t=${'a1'.repeat(32)}">Ad one</a> <a href="/go?t=${'b2'.repeat(32)}">Ad two</a></p>
      <p><a href="/item/5">Item 5</a> <a href="/5/item">Item 5</a></p>`,
    ),
    '/cookies': page(
      'Cookies',
      `<h1>Cookies</h1><div id="c"></div><script>document.getElementById('c').textContent = 'cookie=' + document.cookie;</script>`,
    ),
  };
}

export const IMAGES: Record<string, string> = {
  '/img/a.svg':
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="red"/></svg>',
  '/img/b.svg':
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><rect width="10" height="20" fill="blue"/></svg>',
};
