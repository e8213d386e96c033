/**
 * The wait behind `DownloadLedger.settle`, shared by the ledgers (the local browser's, the user's
 * tab's): a change to a download wakes it through `waiters`, and a timer re-checks on its own for what
 * no event marks (a grace period or the deadline running out).
 */
export function whenSettled(
  waiters: Set<() => void>,
  settled: () => boolean,
  deadline: () => number,
): Promise<void> {
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (!settled() && Date.now() < deadline()) return;
      clearInterval(tick);
      waiters.delete(check);
      resolve();
    };
    const tick = setInterval(check, 50);
    waiters.add(check);
  });
}
