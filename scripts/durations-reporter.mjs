// A third reporter for scripts/test.mjs: the time of each top-level test (a file's describe or
// test), one line of JSON with its file, to the file given as its destination. test.mjs adds them
// up per file and prints each pass's slowest files at the end: where the time of a run goes.
export default async function* durations(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file || details?.duration_ms === undefined) continue;
    yield `${JSON.stringify({ file, ms: details.duration_ms })}\n`;
  }
}
