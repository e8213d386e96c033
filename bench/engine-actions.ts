/**
 * The actions table of `bench:engine` (issue "A toolset that finishes everyday tasks"): each action
 * added to the toolset timed against @playwright/mcp's equivalent on the same page of the test site in
 * the same run (target ≤ 0.8×: hover, select, fill_form, drag, keys, upload, an element screenshot in
 * each kind of iframe, dialog, tabs), `browser_wait_for` timed from the click that starts a 700 ms job, and
 * an annotated screenshot against a plain one (target ≤ 1.5×). Each action is timed alone: the page is
 * loaded and read before the clock starts.
 */
export interface ActionDriver {
  navigate(url: string): Promise<void>;
  snapshot(): Promise<unknown>;
  /** Calls one of the driver's own tools by name. */
  raw(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** The ref of a control in the last snapshot, by its line (`button "Account"`) or a pattern. */
  ref(label: string | RegExp): string;
  /** A small file both tools may upload (inside tabgate's `browser.upload_roots`). */
  uploadFile: string;
}

const uploadFile = (d: ActionDriver) => d.uploadFile;

interface Action {
  name: string;
  page: string;
  /** Untimed set-up after the page is read (a dialog opened, a job started). */
  before?: (d: ActionDriver, ours: boolean) => Promise<unknown>;
  ours: (d: ActionDriver) => Promise<unknown>;
  theirs: (d: ActionDriver) => Promise<unknown>;
}

const ACTIONS: Action[] = [
  {
    name: 'hover',
    page: '/tasks/hover',
    ours: (d) => d.raw('browser_hover', { ref: d.ref('button "Account"') }),
    theirs: (d) => d.raw('browser_hover', { element: 'Account', target: d.ref('button "Account"') }),
  },
  {
    name: 'select 2 options',
    page: '/tasks/select',
    ours: (d) =>
      d.raw('browser_select_option', { ref: d.ref('listbox "Toppings"'), values: ['Ham', 'Basil'] }),
    theirs: (d) =>
      d.raw('browser_select_option', {
        element: 'Toppings',
        target: d.ref('listbox "Toppings"'),
        values: ['Ham', 'Basil'],
      }),
  },
  {
    name: 'fill a 4-field form',
    page: '/tasks/form',
    ours: (d) =>
      d.raw('browser_fill_form', {
        fields: [
          { ref: d.ref('textbox "Full name"'), value: 'Ada Lovelace' },
          { ref: d.ref('combobox "Plan"'), value: 'Pro' },
          { ref: d.ref('checkbox "Newsletter"'), value: true },
          { ref: d.ref('radio "Yearly"'), value: true },
        ],
      }),
    theirs: (d) =>
      d.raw('browser_fill_form', {
        fields: [
          { name: 'Full name', type: 'textbox', target: d.ref('textbox "Full name"'), value: 'Ada Lovelace' },
          { name: 'Plan', type: 'combobox', target: d.ref('combobox "Plan"'), value: 'Pro' },
          { name: 'Newsletter', type: 'checkbox', target: d.ref('checkbox "Newsletter"'), value: 'true' },
          { name: 'Yearly', type: 'radio', target: d.ref('radio "Yearly"'), value: 'true' },
        ],
      }),
  },
  {
    name: 'drag between lists',
    page: '/tasks/drag-html5',
    ours: (d) =>
      d.raw('browser_drag', { from_ref: d.ref('clickable "Apple"'), to_ref: d.ref('clickable "Cherry"') }),
    theirs: (d) =>
      d.raw('browser_drag', {
        startElement: 'Apple',
        startTarget: d.ref(/listitem \[ref=(\w+)\]: Apple/),
        endElement: 'Cherry',
        endTarget: d.ref(/listitem \[ref=(\w+)\]: Cherry/),
      }),
  },
  {
    name: 'press Control+A',
    page: '/tasks/keys',
    ours: (d) => d.raw('browser_press', { key: 'Control+A' }),
    theirs: (d) => d.raw('browser_press_key', { key: 'Control+A' }),
  },
  {
    name: 'press F2',
    page: '/tasks/keys',
    ours: (d) => d.raw('browser_press', { key: 'F2' }),
    theirs: (d) => d.raw('browser_press_key', { key: 'F2' }),
  },
  {
    name: 'upload a file',
    page: '/tasks/upload',
    // Playwright MCP answers a file chooser the page opened; tabgate sets the files on the input.
    before: (d, ours) =>
      ours
        ? Promise.resolve()
        : d.raw('browser_click', {
            element: 'Attachment',
            target: d.ref(/button "Attachment" \[ref=(\w+)\]/),
          }),
    ours: (d) => d.raw('browser_upload', { ref: d.ref('button "Attachment"'), paths: [uploadFile(d)] }),
    theirs: (d) => d.raw('browser_file_upload', { paths: [uploadFile(d)] }),
  },
  {
    name: 'screenshot of an element in a same-origin iframe',
    page: '/frame-shot',
    ours: (d) => d.raw('browser_screenshot', { ref: d.ref('button "Green block"') }),
    theirs: (d) =>
      d.raw('browser_take_screenshot', {
        element: 'Green block',
        target: d.ref(/button "Green block" \[ref=(\w+)\]/),
      }),
  },
  {
    name: 'screenshot of an element in a cross-origin iframe',
    page: '/frame-shot',
    ours: (d) =>
      d.raw('browser_screenshot', {
        ref: d.ref(/button "Green block" @e\d+[\s\S]*?button "Green block" (@e\d+)/),
      }),
    theirs: (d) =>
      d.raw('browser_take_screenshot', {
        element: 'Green block',
        target: d.ref(/button "Green block" \[ref=\w+\][\s\S]*?button "Green block" \[ref=(\w+)\]/),
      }),
  },
  {
    name: 'accept a confirm',
    page: '/tasks/dialogs',
    before: (d, ours) =>
      ours
        ? d.raw('browser_click', { ref: d.ref('button "Delete"') })
        : d.raw('browser_click', { element: 'Delete', target: d.ref('button "Delete"') }),
    ours: (d) => d.raw('browser_dialog', { action: 'accept' }),
    theirs: (d) => d.raw('browser_handle_dialog', { accept: true }),
  },
  {
    name: 'open and close a tab',
    page: '/tasks/hover',
    ours: async (d) => {
      await d.raw('browser_tab_new', {});
      await d.raw('browser_tab_close', {});
    },
    theirs: async (d) => {
      await d.raw('browser_tabs', { action: 'new' });
      await d.raw('browser_tabs', { action: 'close' });
    },
  },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function measureActions(input: {
  ours: ActionDriver;
  theirs: ActionDriver;
  url: (path: string) => string;
  runs: number;
}): Promise<void> {
  const { ours, theirs, url, runs } = input;
  const rows: string[] = [];
  for (const action of ACTIONS) {
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < runs; i++) {
      for (const [index, driver] of [ours, theirs].entries()) {
        await driver.navigate(url(action.page));
        await driver.snapshot();
        await action.before?.(driver, index === 0);
        const act = index === 0 ? action.ours : action.theirs;
        times[index]?.push(await timed(() => act(driver)));
      }
    }
    const [a, b] = [median(times[0]), median(times[1])];
    const ratio = a / b;
    rows.push(
      `| ${action.name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${ratio.toFixed(2)} | ≤ 0.8× ${ratio <= 0.8 ? 'met' : 'MISSED'} |`,
    );
  }

  // wait_for: how long after the text appeared each tool's answer arrived. The page stamps the moment
  // it shows the text (`ready at <ms>`, the same clock as ours), so neither the click that starts the
  // 700 ms job nor its round trip counts.
  const late: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [index, d] of [ours, theirs].entries()) {
      await d.navigate(url('/tasks/wait'));
      await d.snapshot();
      await (index === 0
        ? d.raw('browser_click', { ref: d.ref('button "Start"') })
        : d.raw('browser_click', { element: 'Start', target: d.ref('button "Start"') }));
      await d.raw('browser_wait_for', { text: 'Result ready' });
      const arrived = Date.now();
      const stamp = /ready at (\d+)/.exec(JSON.stringify(await d.snapshot()))?.[1];
      if (!stamp) throw new Error('the wait page shows no ready stamp');
      late[index]?.push(arrived - Number(stamp));
    }
  }
  const [lateOurs, lateTheirs] = [median(late[0]), median(late[1])];

  // The cost of labels: the same viewport screenshot, plain and annotated, alternating.
  await ours.navigate(url('/tasks/annotate'));
  await ours.snapshot();
  const plain: number[] = [];
  const annotated: number[] = [];
  for (let i = 0; i < runs * 2; i++) {
    plain.push(await timed(() => ours.raw('browser_screenshot', {})));
    annotated.push(await timed(() => ours.raw('browser_screenshot', { annotate: true })));
  }
  const [p, n] = [median(plain), median(annotated)];

  console.log(`\nNew actions, side by side with @playwright/mcp (median of ${runs} runs, ms)\n`);
  console.log('| action | tabgate | playwright-mcp | ratio | target |');
  console.log('|---|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
  console.log(
    `| wait_for: answer after the text appeared | ${lateOurs.toFixed(1)} | ${lateTheirs.toFixed(1)} | ${(lateOurs / lateTheirs).toFixed(2)} | ≤ 100 ms ${lateOurs <= 100 ? 'met' : 'MISSED'} |`,
  );
  console.log(
    `| screenshot annotated / plain (tabgate) | ${n.toFixed(1)} | ${p.toFixed(1)} | ${(n / p).toFixed(2)} | ≤ 1.5× ${n / p <= 1.5 ? 'met' : 'MISSED'} |`,
  );
}
