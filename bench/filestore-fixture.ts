// The files both file servers serve: one 1 MiB file and a directory of 1000 small files.
import { randomBytes } from 'node:crypto';

const BIG_FILE_BYTES = 1024 * 1024;
export const DIRECTORY_ENTRIES = 1000;
/** The same 1 MiB on both servers (random bytes: nothing compresses or sniffs differently). */
export const bigFile = randomBytes(BIG_FILE_BYTES);
export const entryName = (i: number) => `entry-${String(i).padStart(4, '0')}.txt`;
export const entryBody = (i: number) => `entry ${i}\n`;
