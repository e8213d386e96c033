/**
 * browser_upload on the user's tab. The gateway read the files (from `browser.upload_roots`, with the
 * checks of every backend) and sent their bytes; here they are set on the file input the ref names, once
 * the person approved the upload in the popup (the `upload` class). A path means nothing in this
 * browser, and chrome.debugger gives an extension no `DOM.setFileInputFiles` of the gateway's files, so
 * the extension's own isolated world builds each `File`, assigns `input.files` through a `DataTransfer`
 * and fires `input` and `change` as a person's choice does. The agent still evaluates no script: this
 * function is the extension's, and the only thing it takes from the call is the files.
 */
import { bindingOf } from '../../engine/actions.js';
import { CallGate, originOfRef, type ActionGate } from '../../engine/action-gate.js';
import { staleError, type PageAgent } from '../../engine/frame-worlds.js';
import {
  TabgateError,
  uploadFilesSchema,
  UPLOAD_FILES_ARGUMENT,
  type UploadFile,
  type UploadResult,
} from '../../protocol/index.js';
import { CommandError } from './command-error.js';
import type { SharedTabs } from './shared-tabs.js';

/** In the page's isolated world: the element's files now (or, with `files`, after setting them). */
function pageFiles(
  agent: PageAgent,
  arg: { id: number; files: { name: string; mime: string; data: string }[] | null },
): UploadResult['uploaded'] | 'stale' | 'not_file' {
  const el = agent.lookup(arg.id);
  if (!el) return 'stale';
  if (!(el instanceof HTMLInputElement) || el.type !== 'file') return 'not_file';
  if (arg.files) {
    const transfer = new DataTransfer();
    for (const file of arg.files) {
      const binary = atob(file.data);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      transfer.items.add(new File([bytes], file.name, { type: file.mime }));
    }
    el.files = transfer.files;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return [...(el.files ?? [])].map((file) => ({ name: file.name, size: file.size }));
}

/** The files the gateway sent with the command; a command without them is not the gateway's. */
export function uploadFilesOf(raw: Record<string, unknown>): {
  files: UploadFile[];
  rest: Record<string, unknown>;
} {
  const { [UPLOAD_FILES_ARGUMENT]: files, ...rest } = raw;
  const parsed = uploadFilesSchema.safeParse(files);
  if (!parsed.success)
    throw new CommandError(
      'invalid_arguments',
      'browser_upload arrived without the files the gateway reads.',
    );
  return { files: parsed.data, rest };
}

const refOf = (ref: string) => (ref.startsWith('@') ? ref : `@${ref}`);

/** Sets the files on the ref's file input, after the person approved; nothing before. */
export async function uploadToUserTab(
  tabs: SharedTabs,
  ref: string,
  files: readonly UploadFile[],
  approvals: ActionGate | undefined,
): Promise<UploadResult> {
  const tab = await tabs.activeTab();
  const open = tab.dialogs.open;
  if (open)
    throw new TabgateError(
      'dialog_open',
      'A dialog is open; answer it with browser_dialog before browser_upload.',
    );
  const at = refOf(ref);
  const { worlds, contextId, localId } = bindingOf(tab, at);
  // Refused before the person is asked: an approval of an upload that cannot happen helps nobody.
  const before = await worlds.call(contextId, pageFiles, { id: localId, files: null });
  if (before === 'stale') throw staleError();
  if (before === 'not_file')
    throw new TabgateError('element_not_interactable', `${at} is not a file input (input type=file).`);
  const gate = approvals && approvals.policy.classes.length > 0 ? new CallGate(approvals) : undefined;
  // A form the page submits on `change` is the upload's own doing: held like any request an input sets off.
  const unwatch = gate?.watchesRequests ? tabs.watchRequests((request) => gate.hold(request)) : undefined;
  try {
    if (gate) {
      const origin = originOfRef(tab, at);
      const size = files.reduce((sum, file) => sum + file.size, 0);
      const names = files.map((file) => JSON.stringify(file.name)).join(', ');
      await gate.input(tab, at, 'type');
      await gate.action(
        'upload',
        at,
        origin,
        `upload ${files.length} file(s) (${names.slice(0, 200)}, ${size} bytes) into ${at} on ${origin}`,
      );
    }
    const after = await worlds.call(contextId, pageFiles, {
      id: localId,
      files: files.map((file) => ({ name: file.name, mime: file.mime, data: file.data_base64 })),
    });
    if (typeof after === 'string') throw staleError();
    await gate?.settle();
    const notices = await tabs.drainNotices();
    return notices.length > 0 ? { uploaded: after, notices } : { uploaded: after };
  } finally {
    unwatch?.();
  }
}
