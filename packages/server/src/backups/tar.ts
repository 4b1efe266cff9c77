import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PassThrough, Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/**
 * Just enough of the POSIX tar format (ustar) to put a backup directory into one file and take
 * it out again: regular files and directories, names up to 255 bytes, sizes up to 8 GiB. Any
 * `tar` reads the result (`tar tf backup.tar`). `.gz`/`.tgz` names are gzipped.
 */

const BLOCK = 512;
const MAX_SIZE = 8 ** 11 - 1;

export const isArchiveName = (path: string) => /\.(tar|tar\.gz|tgz)$/.test(path);
const gzipped = (path: string) => /\.(gz|tgz)$/.test(path);

function header(name: string, size: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut <= 0 || Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`name too long for tar: ${name}`);
  }
  if (size > MAX_SIZE) throw new Error(`file too large for tar: ${name}`);
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, '0')}\0`;
  block.write(base, 0);
  block.write(octal(type === '5' ? 0o755 : 0o644, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(Math.floor(Date.now() / 1000), 12), 136);
  block.write('        ', 148);
  block.write(type, 156);
  block.write('ustar\0' + '00', 257);
  block.write(prefix, 345);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${octal(sum, 7)} `, 148);
  return block;
}

async function* entries(
  root: string,
  dir = root,
): AsyncIterable<{ name: string; path: string; size: number; directory: boolean }> {
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const info = await stat(path);
    const rel = relative(root, path).split(sep).join('/');
    if (info.isDirectory()) {
      yield { name: `${rel}/`, path, size: 0, directory: true };
      yield* entries(root, path);
    } else if (info.isFile()) yield { name: rel, path, size: info.size, directory: false };
  }
}

/** Write every file under `dir` into the archive `file`. */
export async function packDirectory(dir: string, file: string): Promise<void> {
  async function* blocks(): AsyncIterable<Buffer> {
    for await (const entry of entries(dir)) {
      yield header(entry.name, entry.size, entry.directory ? '5' : '0');
      if (entry.directory) continue;
      for await (const chunk of createReadStream(entry.path)) yield chunk as Buffer;
      const pad = (BLOCK - (entry.size % BLOCK)) % BLOCK;
      if (pad) yield Buffer.alloc(pad);
    }
    yield Buffer.alloc(BLOCK * 2);
  }
  const out = createWriteStream(file, { flags: 'wx' });
  await (gzipped(file) ? pipeline(Readable.from(blocks()), createGzip(), out) : pipeline(Readable.from(blocks()), out));
}

/** Extract the archive `file` into `dir` (refusing any name that would land outside it). */
export async function unpackArchive(file: string, dir: string): Promise<void> {
  const root = resolve(dir);
  let buffered: Buffer = Buffer.alloc(0);
  let current: { out: Writable; left: number; pad: number } | null = null;
  let skip = 0;
  let ended = false;
  /** Bytes read so far and where the current header starts, for a message about a damaged archive. */
  let read = 0;
  let offset = 0;
  let failed: Error | undefined;

  /** The file being written, if any, destroyed and closed, whatever it was doing. */
  async function abandonCurrent(): Promise<void> {
    const out = current?.out;
    if (!out || out.closed) return;
    await new Promise((done) => {
      out.once('close', done);
      out.destroy();
    });
  }

  async function consume(): Promise<void> {
    for (;;) {
      if (skip > 0) {
        const n = Math.min(skip, buffered.length);
        buffered = buffered.subarray(n);
        skip -= n;
        if (skip > 0) return;
      }
      if (current) {
        const n = Math.min(current.left, buffered.length);
        if (n > 0) {
          const part = buffered.subarray(0, n);
          buffered = buffered.subarray(n);
          current.left -= n;
          // once() rejects on the stream's 'error' (a full disk), which then ends the restore.
          if (!current.out.write(part)) await once(current.out, 'drain');
        }
        if (current.left > 0) return;
        const done = current;
        current = null;
        skip = done.pad;
        await new Promise<void>((r, j) => done.out.end((err?: Error | null) => (err ? j(err) : r())));
        continue;
      }
      if (ended || buffered.length < BLOCK) return;
      const block = buffered.subarray(0, BLOCK);
      buffered = buffered.subarray(BLOCK);
      offset = read - buffered.length - BLOCK;
      if (block.every((b) => b === 0)) {
        ended = true;
        return;
      }
      if (!checksumMatches(block))
        throw new DamagedArchiveError(
          `${file} is not a tar archive or is damaged (a header at byte ${offset} fails its checksum)`,
        );
      const text = (from: number, length: number) =>
        block
          .subarray(from, from + length)
          .toString('utf8')
          .replace(/\0.*$/s, '');
      const prefix = text(345, 155);
      const name = (prefix ? `${prefix}/` : '') + text(0, 100);
      const size = parseInt(text(124, 12).trim() || '0', 8);
      const type = text(156, 1) || '0';
      const target = resolve(root, name);
      if (target !== root && !target.startsWith(root + sep))
        throw new Error(`archive entry outside the target: ${name}`);
      if (type === '5') await mkdir(target, { recursive: true });
      else if (type === '0') {
        await mkdir(dirname(target), { recursive: true });
        const out = createWriteStream(target, { flags: 'wx' });
        // Until end() or once() hears it, a failure of the file is kept for the next write's turn.
        out.on('error', (err) => (failed ??= err));
        current = {
          out,
          left: size,
          pad: (BLOCK - (size % BLOCK)) % BLOCK,
        };
        if (size === 0) continue;
      } else skip = size + ((BLOCK - (size % BLOCK)) % BLOCK);
    }
  }

  const source = createReadStream(file);
  const input = gzipped(file) ? source.pipe(createGunzip()) : source.pipe(new PassThrough());
  source.on('error', (err) => input.destroy(err));
  try {
    try {
      for await (const chunk of input) {
        read += (chunk as Buffer).length;
        buffered = buffered.length ? Buffer.concat([buffered, chunk as Buffer]) : (chunk as Buffer);
        await consume();
        if (failed) throw failed;
      }
    } catch (err) {
      // zlib's own words ("incorrect header check") name no file and no way out.
      if (typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('Z_')) {
        throw new DamagedArchiveError(
          `${file} is not a gzip file or is damaged (${(err as Error).message}); a backup ending in .tar.gz must be ` +
            'the file roost backup wrote',
          { cause: err },
        );
      }
      throw err;
    }
    await consume();
    if (current || !ended)
      throw new DamagedArchiveError(
        `${file} ends early: the backup is incomplete or damaged (was it still being copied?)`,
      );
  } finally {
    // A file the archive broke off in the middle of: closed before the caller removes the folder
    // (backups/backup-archive.ts, restore), whose removal would otherwise race the file's own opening, still
    // under way, and fail it with an ENOENT that hid the damaged archive's message.
    await abandonCurrent();
  }
}

/** An archive that is not one, or is cut short or corrupted. */
class DamagedArchiveError extends Error {
  override readonly name = 'DamagedArchiveError';
}

/** A ustar header's checksum: the sum of its bytes with the checksum field read as spaces. */
function checksumMatches(block: Buffer): boolean {
  const stored = parseInt(
    block
      .subarray(148, 156)
      .toString('latin1')
      .replace(/[\0 ]+$/g, '')
      .trim(),
    8,
  );
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return stored === sum;
}
