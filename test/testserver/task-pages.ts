/**
 * Pages of the test site for everyday tasks: keys, click variants, hover menus, selects, mixed forms,
 * drag and drop, waits, dialogs, uploads and downloads, and a fixed layout for annotated screenshots.
 */
const page = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

const LOG = `<div id="log">log:</div><script>
  const log = (text) => { document.getElementById('log').textContent += ' ' + text; };
</script>`;

/** Two lists; moving `Apple` from the first to the second is what the drag cases check. */
const lists = (items: string) => `<style>
  ul { display: inline-block; vertical-align: top; width: 200px; min-height: 120px; margin: 20px; padding: 8px; border: 2px solid #888; list-style: none; }
  li { padding: 10px; margin: 4px; background: #def; user-select: none; }
</style>
<ul id="left" aria-label="Left list">${items}</ul><ul id="right" aria-label="Right list"><li tabindex="0">Cherry</li></ul>
<p id="state"></p>
<script>
  const show = () => { document.getElementById('state').textContent = 'right has: ' + [...document.querySelectorAll('#right li')].map((li) => li.textContent).join(','); };
  show();
</script>`;

export const TASK_PAGES: Record<string, string> = {
  // What the page may use without a person's say: each permission's state, then a location request's end.
  '/tasks/permissions': page(
    'Permissions',
    `<h1>Permissions</h1><p id="states">checking</p><p id="location">location: asked</p>
    <script>
      Promise.all(['geolocation', 'notifications', 'camera', 'microphone'].map((name) =>
        navigator.permissions.query({ name }).then((s) => name + '=' + s.state, () => name + '=unknown'),
      )).then((states) => { document.getElementById('states').textContent = 'states: ' + states.join(' '); });
      navigator.geolocation.getCurrentPosition(
        () => { document.getElementById('location').textContent = 'location: given'; },
        (error) => { document.getElementById('location').textContent = 'location: refused code ' + error.code; },
      );
    </script>`,
  ),
  '/tasks/keys': page(
    'Keys',
    `<h1>Keys</h1>
    <textarea aria-label="Editor">hello world</textarea>
    ${LOG}
    <script>
      document.addEventListener('keydown', (e) => {
        const mods = ['ctrlKey', 'shiftKey', 'altKey', 'metaKey'].filter((m) => e[m]).map((m) => m.replace('Key', ''));
        log([...mods, e.key].join('+') + '/' + e.code + ':' + e.isTrusted);
      });
      document.addEventListener('keyup', (e) => { if (e.key === 'F2') log('F2-up'); });
    </script>`,
  ),
  '/tasks/clicks': page(
    'Clicks',
    `<h1>Clicks</h1>
    <button id="target" style="width:200px;height:60px">Target</button>
    ${LOG}
    <script>
      const t = document.getElementById('target');
      t.addEventListener('mousedown', (e) => log('down' + e.button));
      t.addEventListener('click', (e) => log('click' + e.detail + (e.ctrlKey ? '+ctrl' : '') + (e.shiftKey ? '+shift' : '')));
      t.addEventListener('dblclick', () => log('dblclick'));
      t.addEventListener('auxclick', (e) => log('auxclick' + e.button));
      t.addEventListener('contextmenu', (e) => { e.preventDefault(); log('contextmenu'); });
    </script>`,
  ),
  '/tasks/hover': page(
    'Hover menu',
    `<style>
      .menu { display: inline-block; padding: 10px; background: #eee; }
      .menu .items { display: none; }
      .menu:hover .items { display: block; }
    </style>
    <h1>Hover menu</h1>
    <div class="menu"><button>Account</button><div class="items"><a href="/page2">Settings</a> <a href="/page2">Sign out</a></div></div>`,
  ),
  '/tasks/select': page(
    'Selects',
    `<h1>Selects</h1>
    <label>Size <select id="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select></label>
    <label>Toppings <select id="toppings" multiple size="4"><option value="ham">Ham</option><option value="olives">Olives</option><option value="cheese">Cheese</option><option value="basil">Basil</option></select></label>
    ${LOG}
    <script>
      for (const id of ['size', 'toppings']) {
        document.getElementById(id).addEventListener('change', (e) => log(id + '=' + [...e.target.selectedOptions].map((o) => o.value).join(',')));
      }
    </script>`,
  ),
  '/tasks/form': page(
    'Sign up',
    `<h1>Sign up</h1>
    <form id="f">
      <label>Full name <input name="name"></label>
      <label>Plan <select name="plan"><option>Free</option><option>Pro</option><option>Team</option></select></label>
      <label><input type="checkbox" name="news"> Newsletter</label>
      <label><input type="checkbox" name="terms" checked> Terms</label>
      <fieldset><legend>Billing</legend>
        <label><input type="radio" name="billing" value="monthly" checked> Monthly</label>
        <label><input type="radio" name="billing" value="yearly"> Yearly</label>
      </fieldset>
      <button type="button" onclick="document.getElementById('out').textContent = JSON.stringify(Object.fromEntries(new FormData(document.getElementById('f'))))">Review</button>
    </form>
    <pre id="out"></pre>`,
  ),
  '/tasks/drag-html5': page(
    'HTML5 drag',
    `<h1>HTML5 drag</h1>${lists('<li draggable="true" tabindex="0">Apple</li><li draggable="true" tabindex="0">Banana</li>')}
    <script>
      document.querySelectorAll('li[draggable]').forEach((li) => li.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', li.textContent)));
      const right = document.getElementById('right');
      right.addEventListener('dragover', (e) => e.preventDefault());
      right.addEventListener('drop', (e) => {
        e.preventDefault();
        const name = e.dataTransfer.getData('text/plain');
        const li = [...document.querySelectorAll('#left li')].find((item) => item.textContent === name);
        if (li) right.appendChild(li);
        show();
      });
    </script>`,
  ),
  '/tasks/drag-pointer': page(
    'Pointer drag',
    `<h1>Pointer drag</h1>${lists('<li tabindex="0">Apple</li><li tabindex="0">Banana</li>')}
    <script>
      let dragged = null;
      document.querySelectorAll('#left li').forEach((li) => li.addEventListener('pointerdown', () => { dragged = li; }));
      let moves = 0;
      document.addEventListener('pointermove', () => { if (dragged) moves++; });
      document.addEventListener('pointerup', (e) => {
        const list = document.elementFromPoint(e.clientX, e.clientY)?.closest('ul');
        if (dragged && list && list.id === 'right' && moves > 2) list.appendChild(dragged);
        dragged = null;
        show();
      });
    </script>`,
  ),
  '/tasks/wait': page(
    'Wait',
    `<h1>Wait</h1>
    <button onclick="setTimeout(() => { document.getElementById('result').textContent = 'Result ready'; document.getElementById('at').textContent = 'ready at ' + Date.now(); document.getElementById('spinner').remove(); }, 700)">Start</button>
    <button onclick="setTimeout(() => { document.getElementById('result').textContent = 'Result ready'; document.getElementById('spinner').remove(); }, 0)">Start now</button>
    <div id="spinner" role="status">Loading…</div>
    <div id="result"></div><p id="at"></p>`,
  ),
  '/tasks/dialogs': page(
    'Files',
    `<h1>Files</h1>
    <p id="files">3 files</p>
    <button onclick="if (confirm('Delete 3 files?')) document.getElementById('files').textContent = 'deleted'">Delete</button>
    <button onclick="document.getElementById('who').textContent = 'name=' + prompt('Your name?', 'anon')">Rename</button>
    <button onclick="alert('Saved'); document.getElementById('who').textContent = 'after alert'">Save</button>
    <button onclick="window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; }); document.getElementById('who').textContent = 'guarded'">Guard</button>
    <button onclick="setTimeout(() => alert('Later'), 0)">Later</button>
    <p id="who">none</p>`,
  ),
  '/tasks/annotate': page(
    'Annotate',
    `<style>
      body { margin: 0; background: #fff; }
      button, a { position: absolute; width: 160px; height: 60px; border: 0; background: #ddd; font-size: 0; }
    </style>
    <button style="left: 40px; top: 40px" aria-label="First">.</button>
    <button style="left: 300px; top: 200px" aria-label="Second">.</button>
    <label style="position:absolute; left: 40px; top: 320px">Password <input type="password" value="hunter2hunter2" style="width:200px;height:30px;font-size:24px"></label>`,
  ),
  '/tasks/upload': page(
    'Upload',
    `<h1>Upload</h1>
    <input type="file" aria-label="Attachment" multiple>
    <p id="out">no file</p>
    <script>
      document.querySelector('input').addEventListener('change', async (e) => {
        const parts = [];
        for (const file of e.target.files) {
          const res = await fetch('/echo-sha256', { method: 'POST', body: await file.arrayBuffer() });
          parts.push(file.name + ' ' + file.size + ' sha256=' + (await res.text()));
        }
        document.getElementById('out').textContent = parts.join('; ');
      });
    </script>`,
  ),
  // A form whose page submits it itself a moment after the person asked (a check first, then submit()):
  // an answer that comes before that reads the form again. The check holds the page's thread for a
  // while, as a starved renderer would: a settle timed outside the page answers before it is done.
  '/tasks/late-submit': page(
    'Late submit',
    `<h1>Late submit</h1>
    <form action="/thanks" method="get">
      <label>Your name <input name="name"></label>
      <button type="submit">Send</button>
    </form>
    <script>
      document.querySelector('form').addEventListener('submit', (event) => {
        event.preventDefault();
        setTimeout(() => {
          for (const end = performance.now() + 400; performance.now() < end; );
          event.target.submit();
        }, 100);
      });
    </script>`,
  ),
  // A form the page submits itself when the button is clicked, and then holds its thread from a task of
  // its own before the submission's task runs: the navigation the page asked for starts only after
  // that, later than any fixed wait a loaded host may need. "Send, then stop" asks and drops it.
  '/tasks/busy-submit': page(
    'Busy submit',
    `<h1>Busy submit</h1>
    <form action="/thanks" method="get">
      <label>Your name <input name="name"></label>
    </form>
    <button id="send">Send</button>
    <button id="drop">Send, then stop</button>
    <script>
      const form = document.querySelector('form');
      document.getElementById('send').addEventListener('click', () => {
        form.submit();
        setTimeout(() => {
          for (const end = performance.now() + 1500; performance.now() < end; );
        }, 0);
      });
      document.getElementById('drop').addEventListener('click', () => {
        form.submit();
        window.stop();
        document.querySelector('h1').textContent = 'Stayed';
      });
    </script>`,
  ),
  '/tasks/downloads': page(
    'Downloads',
    `<h1>Downloads</h1>
    <a href="/download?name=report.csv&size=5000" download>Small report</a>
    <a href="/download?name=huge.bin&size=3000000" download>Huge file</a>`,
  ),
};

/** Deterministic bytes of a download, so a test can hash what the server sent. */
export function downloadBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) % 251;
  return bytes;
}
