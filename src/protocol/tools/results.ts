/**
 * What each tool returns on tabgate's own backends (the CDP engine, and the tabgate extension, which runs
 * the same engine). A third-party controller's result is passed through as it is.
 */
import type { ApprovalRecord } from '../approvals.js';

export interface PageInfo {
  url: string;
  title: string;
}

export interface SnapshotResult extends PageInfo {
  /** The outline text: one element per line, actionable ones carrying a ref like `@e3`. */
  snapshot: string;
  /** Number of elements carrying a ref in the whole snapshot (not only the returned part). */
  ref_count: number;
  truncated: boolean;
  /** Length in characters of the whole snapshot. */
  total_chars: number;
  /** Where the returned part starts. */
  offset: number;
  /** Where the next part starts, to pass as `offset`; null when nothing is left. */
  next_offset: number | null;
  /** Why a `ref` or `find` answer is empty, and what to try instead. */
  hint?: string;
}

/** A page a navigation passed through before it settled, and how that page sent the browser on. */
export interface RedirectHop {
  url: string;
  via: 'http' | 'meta_refresh' | 'refresh_header' | 'form' | 'script';
  /** The HTTP status of an `http` hop (301, 302, 303, 307, 308). */
  status?: number;
}

export interface NavigateResult extends PageInfo {
  /** The main document's HTTP status; null for about:blank or when no response was seen. */
  status: number | null;
  /** The pages passed through on the way, in order; absent when the URL loaded directly. */
  redirects?: RedirectHop[];
  /** The page's outline (or the first page of its snapshot with `snapshot: "full"`); absent with "none". */
  snapshot?: SnapshotResult;
}

export interface ClickResult {
  clicked: string;
}

export interface TypeResult {
  typed_into: string;
  submitted: boolean;
  /** The name of the vault secret that was filled; its value is never returned. */
  secret?: string;
}

export interface PressResult {
  pressed: string;
}

export interface ScrollResult {
  scrolled: 'up' | 'down' | 'left' | 'right';
  scroll_x: number;
  scroll_y: number;
}

export type BackResult = PageInfo;

export interface ScreenshotResult {
  mime_type: 'image/png' | 'image/jpeg';
  /** Base64 of the image. */
  data: string;
  width: number;
  height: number;
  full_page: boolean;
  /** With `annotate`: each labelled element's ref and box, in image pixels. */
  labels?: { ref: string; x: number; y: number; width: number; height: number }[];
  /** Password and secret fields painted over before the capture. */
  masked?: number;
}

export interface HoverResult {
  hovered: string;
}

export interface SelectOptionResult {
  selected: string[];
}

export interface FillFormResult {
  filled: string[];
}

export interface DragResult {
  dragged: string;
  dropped_on: string;
  /** `html5`: the page's drag-and-drop events; `pointer`: mouse moves only. */
  kind: 'html5' | 'pointer';
}

export interface UploadResult {
  uploaded: { name: string; size: number }[];
}

export interface WaitResult extends SnapshotResult {
  waited_ms: number;
}

export interface DialogResult {
  /** The dialog answered, as `confirm "Sure?"`. */
  handled: string;
  accepted: boolean;
}

export interface DownloadInfo {
  name: string;
  size: number;
  mime: string;
  sha256: string;
  path: string;
  /** `complete`, or `stopped` with why (over the size cap, cancelled by the page). */
  state: 'complete' | 'stopped';
  reason?: string;
}

export interface DownloadsResult {
  downloads: DownloadInfo[];
}

export interface TabNewResult extends PageInfo {
  tab_id: number;
}

export interface TabCloseResult {
  closed: number;
  /** The tab now active; null when none is left (the next call opens one). */
  active: number | null;
}

export interface TabInfo extends PageInfo {
  id: number;
  active: boolean;
}

export interface TabsResult {
  tabs: TabInfo[];
}

export interface TabActivateResult extends PageInfo {
  activated: number;
}

export interface ConsoleEntry {
  type: string;
  text: string;
  url?: string;
  line?: number;
}

export interface ConsoleResult {
  messages: ConsoleEntry[];
  errors: { message: string }[];
  cleared: boolean;
}

export interface ImageInfo {
  src: string;
  alt: string;
  width: number;
  height: number;
}

export interface ImagesResult {
  images: ImageInfo[];
}

/**
 * Any object result of tabgate's engine may also carry `notices`: things that happened since the last
 * call that the agent should know (a dialog dismissed automatically, a tab opened or closed).
 */
export interface ResultNotices {
  notices?: string[];
  /** A dialog open in the active tab (`confirm "Delete 3 files?"`): answer it with browser_dialog. */
  dialog?: string;
  /** Files that finished downloading during this call. */
  downloads?: DownloadInfo[];
}

export interface ToolResults {
  browser_navigate: NavigateResult;
  browser_snapshot: SnapshotResult;
  browser_click: ClickResult;
  browser_type: TypeResult;
  browser_press: PressResult;
  browser_scroll: ScrollResult;
  browser_back: BackResult;
  browser_screenshot: ScreenshotResult;
  browser_tabs: TabsResult;
  browser_tab_activate: TabActivateResult;
  browser_console: ConsoleResult;
  browser_get_images: ImagesResult;
  /** The page's readable text, in the snapshot's shape (`snapshot` holds the text). */
  browser_read: SnapshotResult;
  browser_hover: HoverResult;
  browser_select_option: SelectOptionResult;
  browser_fill_form: FillFormResult;
  browser_drag: DragResult;
  browser_upload: UploadResult;
  browser_wait_for: WaitResult;
  browser_dialog: DialogResult;
  browser_forward: PageInfo;
  browser_reload: PageInfo;
  browser_tab_new: TabNewResult;
  browser_tab_close: TabCloseResult;
  browser_downloads: DownloadsResult;
  browser_approval_status: ApprovalRecord;
}
