/**
 * What each tool returns, as zod schemas: the one description of a result that the engine's types, the
 * broker's check of a controller's answer and the MCP renderer all derive from. Every object result may
 * also carry the notices of {@link noticesShape}, which the engine adds to whatever the tool returned.
 */
import { z } from 'zod';

/**
 * A download of the session; a result field of its own and a notice. `sha256` and `path` are there
 * once the gateway kept the file in the session's folder (the local browser's, and the user's tab's,
 * which the extension streams to the gateway).
 */
export const downloadInfoSchema = z.object({
  name: z.string(),
  size: z.number(),
  mime: z.string(),
  sha256: z.string().optional(),
  path: z.string().optional(),
  /**
   * `complete`; `stopped` with why (over the size cap, cancelled, denied by the person); on the user's
   * tab also `in_progress` and `awaiting_approval` (held below the page until the person decides).
   */
  state: z.enum(['complete', 'stopped', 'in_progress', 'awaiting_approval']),
  reason: z.string().optional(),
});
export type DownloadInfo = z.infer<typeof downloadInfoSchema>;

/**
 * Things that happened since the last call that the agent should know (a dialog dismissed
 * automatically, a tab opened or closed), on any object result of tabgate's engine.
 */
export const noticesShape = {
  notices: z.array(z.string()).optional(),
  /** A dialog open in the active tab (`confirm "Delete 3 files?"`): answer it with browser_dialog. */
  dialog: z.string().optional(),
  /** Files that finished downloading during this call. */
  downloads: z.array(downloadInfoSchema).optional(),
};
export type ResultNotices = z.infer<z.ZodObject<typeof noticesShape>>;

/** A tool's result: its own fields (browser_downloads' own `downloads` wins), and the notices. */
export const result = <Shape extends z.ZodRawShape>(shape: Shape) => z.object(noticesShape).extend(shape);

const pageInfoShape = { url: z.string(), title: z.string() };
export const pageInfoSchema = result(pageInfoShape);
export type PageInfo = z.infer<typeof pageInfoSchema>;

const snapshotShape = {
  ...pageInfoShape,
  /** The outline text: one element per line, actionable ones carrying a ref like `@e3`. */
  snapshot: z.string(),
  /** Number of elements carrying a ref in the whole snapshot (not only the returned part). */
  ref_count: z.number().int(),
  truncated: z.boolean(),
  /** Length in characters of the whole snapshot. */
  total_chars: z.number().int(),
  /** Where the returned part starts. */
  offset: z.number().int(),
  /** Where the next part starts, to pass as `offset`; null when nothing is left. */
  next_offset: z.number().int().nullable(),
  /** Why a `ref` or `find` answer is empty, and what to try instead. */
  hint: z.string().optional(),
};
export const snapshotResultSchema = result(snapshotShape);
export type SnapshotResult = z.infer<typeof snapshotResultSchema>;

/** A page a navigation passed through before it settled, and how that page sent the browser on. */
export const redirectHopSchema = z.object({
  url: z.string(),
  via: z.enum(['http', 'meta_refresh', 'refresh_header', 'form', 'script']),
  /** The HTTP status of an `http` hop (301, 302, 303, 307, 308). */
  status: z.number().int().optional(),
});
export type RedirectHop = z.infer<typeof redirectHopSchema>;

export const navigateResultSchema = result({
  ...pageInfoShape,
  /** The main document's HTTP status; null for about:blank or when no response was seen. */
  status: z.number().int().nullable(),
  /** The pages passed through on the way, in order; absent when the URL loaded directly. */
  redirects: z.array(redirectHopSchema).optional(),
  /** The page's outline (or the first page of its snapshot with `snapshot: "full"`); absent with "none". */
  snapshot: z.object(snapshotShape).optional(),
});
export type NavigateResult = z.infer<typeof navigateResultSchema>;

export const clickResultSchema = result({ clicked: z.string() });
export type ClickResult = z.infer<typeof clickResultSchema>;

export const typeResultSchema = result({
  typed_into: z.string(),
  submitted: z.boolean(),
  /** The name of the vault secret that was filled; its value is never returned. */
  secret: z.string().optional(),
});
export type TypeResult = z.infer<typeof typeResultSchema>;

export const pressResultSchema = result({ pressed: z.string() });
export type PressResult = z.infer<typeof pressResultSchema>;

export const scrollResultSchema = result({
  scrolled: z.enum(['up', 'down', 'left', 'right']),
  /**
   * The page's scroll position after the call, in CSS pixels; null on a backend that cannot read it
   * (Camofox's scroll call reports no position, and tabgate runs no script there to ask).
   */
  scroll_x: z.number().nullable(),
  scroll_y: z.number().nullable(),
});
export type ScrollResult = z.infer<typeof scrollResultSchema>;

export type BackResult = PageInfo;

export const screenshotResultSchema = result({
  mime_type: z.enum(['image/png', 'image/jpeg']),
  /** Base64 of the image. */
  data: z.string(),
  width: z.number(),
  height: z.number(),
  full_page: z.boolean(),
  /** With `annotate`: each labelled element's ref and box, in image pixels. */
  labels: z
    .array(z.object({ ref: z.string(), x: z.number(), y: z.number(), width: z.number(), height: z.number() }))
    .optional(),
  /** Password and secret fields painted over before the capture. */
  masked: z.number().int().optional(),
});
export type ScreenshotResult = z.infer<typeof screenshotResultSchema>;

export const hoverResultSchema = result({ hovered: z.string() });
export type HoverResult = z.infer<typeof hoverResultSchema>;

export const selectOptionResultSchema = result({ selected: z.array(z.string()) });
export type SelectOptionResult = z.infer<typeof selectOptionResultSchema>;

export const fillFormResultSchema = result({ filled: z.array(z.string()) });
export type FillFormResult = z.infer<typeof fillFormResultSchema>;

export const dragResultSchema = result({
  dragged: z.string(),
  dropped_on: z.string(),
  /** `html5`: the page's drag-and-drop events; `pointer`: mouse moves only. */
  kind: z.enum(['html5', 'pointer']),
});
export type DragResult = z.infer<typeof dragResultSchema>;

export const uploadResultSchema = result({
  uploaded: z.array(z.object({ name: z.string(), size: z.number() })),
});
export type UploadResult = z.infer<typeof uploadResultSchema>;

export const waitResultSchema = result({ ...snapshotShape, waited_ms: z.number() });
export type WaitResult = z.infer<typeof waitResultSchema>;

export const dialogResultSchema = result({
  /** The dialog answered, as `confirm "Sure?"`. */
  handled: z.string(),
  accepted: z.boolean(),
});
export type DialogResult = z.infer<typeof dialogResultSchema>;

export const downloadsResultSchema = result({ downloads: z.array(downloadInfoSchema) });
export type DownloadsResult = z.infer<typeof downloadsResultSchema>;

export const tabNewResultSchema = result({ ...pageInfoShape, tab_id: z.number().int() });
export type TabNewResult = z.infer<typeof tabNewResultSchema>;

export const tabCloseResultSchema = result({
  closed: z.number().int(),
  /** The tab now active; null when none is left (the next call opens one). */
  active: z.number().int().nullable(),
});
export type TabCloseResult = z.infer<typeof tabCloseResultSchema>;

export const tabInfoSchema = z.object({ ...pageInfoShape, id: z.number().int(), active: z.boolean() });
export type TabInfo = z.infer<typeof tabInfoSchema>;

export const tabsResultSchema = result({ tabs: z.array(tabInfoSchema) });
export type TabsResult = z.infer<typeof tabsResultSchema>;

export const tabActivateResultSchema = result({ ...pageInfoShape, activated: z.number().int() });
export type TabActivateResult = z.infer<typeof tabActivateResultSchema>;

export const consoleEntrySchema = z.object({
  type: z.string(),
  text: z.string(),
  url: z.string().optional(),
  line: z.number().optional(),
});
export type ConsoleEntry = z.infer<typeof consoleEntrySchema>;

export const consoleResultSchema = result({
  messages: z.array(consoleEntrySchema),
  errors: z.array(z.object({ message: z.string() })),
  cleared: z.boolean(),
});
export type ConsoleResult = z.infer<typeof consoleResultSchema>;

export const imageInfoSchema = z.object({
  src: z.string(),
  alt: z.string(),
  width: z.number(),
  height: z.number(),
});
export type ImageInfo = z.infer<typeof imageInfoSchema>;

export const imagesResultSchema = result({ images: z.array(imageInfoSchema) });
export type ImagesResult = z.infer<typeof imagesResultSchema>;
