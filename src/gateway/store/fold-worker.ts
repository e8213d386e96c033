/**
 * The thread the embedded store's audit folds run on (background-folds.ts says why): a connection of
 * its own to state.db, folding each batch it is handed, in the order handed, and answering with the
 * ids its rows got.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { AuditStore } from '../audit/audit-store.js';
import type { FoldAnswer, FoldOrder, FoldWorkerData } from './background-folds.js';
import { openDatabaseConnection } from './database.js';

const port = parentPort;
if (!port) throw new Error('fold-worker runs as a worker thread');
const db = openDatabaseConnection((workerData as FoldWorkerData).file);
const audit = new AuditStore(db);

port.on('message', (order: FoldOrder) => {
  if (order === 'close') {
    db.close();
    port.close();
    return;
  }
  let answer: FoldAnswer;
  try {
    answer = { ids: audit.foldIds(order.rows, order.offsets) };
  } catch (error) {
    // A fold that fails here fails as it would on the gateway's thread: the journal tries it again.
    answer = { error: (error as Error).message };
  }
  port.postMessage(answer);
});
