/**
 * `GET /v1/sessions/{id}/downloads/{name}`: a file the session downloaded, for the session's owner
 * (the same caller the session's other routes require). Only a plain file directly in the session's
 * own folder is served; a name with a path in it, or a link, is not found.
 */
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { TabgateError } from '../../../protocol/index.js';
import { mimeOf, safeFileName, sessionFolder } from '../../backends/cdp/downloads.js';
import type { GatewayService } from '../../service.js';
import type { Route } from '../route-table.js';

export function downloadRoutes(service: GatewayService, downloadsDir: string): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/sessions/:id/downloads/:name',
      handle: async (ctx) => {
        if (!ctx.caller) throw new Error('route requires a caller');
        const sessionId = ctx.params.id ?? '';
        // Throws session_not_found for another owner's session, as every session route does.
        await service.getSession(ctx.caller, sessionId);
        const name = ctx.params.name ?? '';
        const missing = new TabgateError(
          'download_not_found',
          `This session has no download named ${JSON.stringify(name.slice(0, 200))}.`,
        );
        if (name !== safeFileName(name)) throw missing;
        const path = join(sessionFolder(downloadsDir, sessionId), name);
        const info = await lstat(path).catch(() => null);
        if (!info?.isFile()) throw missing;
        ctx.res.writeHead(200, {
          'content-type': mimeOf(name),
          'content-length': String(info.size),
          'content-disposition': `attachment; filename="${name}"`,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
        });
        await new Promise<void>((resolve, reject) => {
          const stream = createReadStream(path);
          stream.on('error', reject);
          ctx.res.on('finish', resolve);
          ctx.res.on('close', resolve);
          stream.pipe(ctx.res);
        });
      },
    },
  ];
}
