/**
 * Pointer actions beyond a click: hovering (a trusted mouse move onto the element, which is what opens
 * CSS `:hover` menus) and dragging one element onto another. A drag is pressed, moved in steps and
 * released like a hand would; when the page starts an HTML5 drag-and-drop, Chromium hands the drag to us
 * (`Input.setInterceptDrags`) and it is dropped on the target with the page's own drag data.
 */
import type { Tab } from './tab.js';
import { clickPoint } from './actions.js';

export async function hover(tab: Tab, ref: string): Promise<void> {
  const { x, y } = await clickPoint(tab, ref);
  // A mouseover handler may open a dialog, which holds the move's acknowledgement.
  await tab.dialogs.unlessDialog(
    tab.page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y }),
    null,
  );
}

/** Moves between two points in small steps: pointer-based drag code reacts to each move. */
const DRAG_STEPS = 8;

interface DragData {
  items: { mimeType: string; data: string }[];
  dragOperationsMask: number;
}

export async function drag(tab: Tab, fromRef: string, toRef: string): Promise<'html5' | 'pointer'> {
  const end = await clickPoint(tab, toRef);
  const start = await clickPoint(tab, fromRef);
  const mouse = (params: object) => tab.page.send('Input.dispatchMouseEvent', params);
  let intercepted: DragData | null = null;
  const off = tab.page.on<{ data: DragData }>('Input.dragIntercepted', ({ data }) => (intercepted = data));
  await tab.page.send('Input.setInterceptDrags', { enabled: true });
  try {
    await mouse({ type: 'mouseMoved', x: start.x, y: start.y });
    await mouse({ type: 'mousePressed', x: start.x, y: start.y, button: 'left', buttons: 1, clickCount: 1 });
    for (let step = 1; step <= DRAG_STEPS; step++) {
      const x = start.x + ((end.x - start.x) * step) / DRAG_STEPS;
      const y = start.y + ((end.y - start.y) * step) / DRAG_STEPS;
      await mouse({ type: 'mouseMoved', x, y, button: 'left', buttons: 1 });
      if (intercepted) break;
    }
    const data = intercepted as DragData | null;
    if (data) {
      const at = { x: end.x, y: end.y, data };
      await tab.page.send('Input.dispatchDragEvent', { type: 'dragEnter', ...at });
      await tab.page.send('Input.dispatchDragEvent', { type: 'dragOver', ...at });
      await tab.page.send('Input.dispatchDragEvent', { type: 'drop', ...at });
    }
    await mouse({ type: 'mouseReleased', x: end.x, y: end.y, button: 'left', buttons: 0, clickCount: 1 });
    return data ? 'html5' : 'pointer';
  } finally {
    off();
    await tab.page.send('Input.setInterceptDrags', { enabled: false }).catch(() => undefined);
  }
}
