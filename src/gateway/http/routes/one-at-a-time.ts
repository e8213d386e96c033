/**
 * An async step that never overlaps itself: asked while it runs, it runs once more when it ends (however
 * often it was asked meanwhile). The dashboard's hub builds its chunks and each tab's stream writes them
 * this way, so a burst of events costs one extra pass, not one per event. A step's failure is dropped:
 * the next ask runs it again.
 */
export class OneAtATime {
  private running = false;
  private again = false;

  /** `settled` runs after each pass; false stops a rerun that was asked for (the owner closed). */
  constructor(
    private readonly step: () => Promise<void>,
    private readonly settled: () => boolean = () => true,
  ) {}

  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.step()
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        if (!this.settled()) return;
        if (this.again) {
          this.again = false;
          this.run();
        }
      });
  }
}
