import type { Progress } from '../backups/backup-archive.js';

/**
 * A backup's or restore's progress on one terminal line (rows, files, bytes), redrawn at most
 * ten times a second, on standard error so that standard output keeps only the summary. Drawn
 * when standard error is a terminal, or always with `--progress` (a log collector then gets a
 * line per tenth of a second).
 */
export function progressLine(
  verb: string,
  options: { force: boolean; stream?: NodeJS.WriteStream },
): { update(progress: Progress): void; done(): void } {
  const stream = options.stream ?? process.stderr;
  const draw = options.force || stream.isTTY === true;
  const terminal = stream.isTTY === true;
  let last = 0;
  let shown: Progress | null = null;
  const line = (p: Progress) => `${verb}: ${p.rows} rows, ${p.files} files, ${formatBytes(p.bytes)}`;
  const write = (p: Progress) => stream.write(terminal ? `\r${line(p)}\x1b[K` : `${line(p)}\n`);
  return {
    update(progress) {
      if (!draw) return;
      shown = progress;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      write(progress);
    },
    done() {
      if (!draw || !shown) return;
      write(shown);
      if (terminal) stream.write('\n');
    },
  };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
