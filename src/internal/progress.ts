/**
 * Progress of long work: a bar redrawn in place on a terminal, plain lines
 * at most every few seconds otherwise (logs, CI).
 */
export interface Progress {
  update(done: number, total: number, detail: string): void;
  finish(detail: string): void;
}

export function createProgress(label: string, out: NodeJS.WriteStream = process.stderr, intervalMs = 5000): Progress {
  const tty = out.isTTY === true;
  let lastLine = 0;
  const started = Date.now();
  const render = (done: number, total: number, detail: string) => {
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const seconds = (Date.now() - started) / 1000;
    return { fraction, text: `${label} ${(fraction * 100).toFixed(1)}% ${detail} (${seconds.toFixed(0)} s)` };
  };
  return {
    update(done, total, detail) {
      const { fraction, text } = render(done, total, detail);
      if (tty) {
        const width = 30;
        const filled = Math.round(fraction * width);
        out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}\x1b[K`);
      } else if (Date.now() - lastLine >= intervalMs) {
        lastLine = Date.now();
        out.write(`${text}\n`);
      }
    },
    finish(detail) {
      out.write(`${tty ? '\r\x1b[K' : ''}${label} done: ${detail} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
}
