// A second reporter for scripts/test.mjs, beside the usual one: each failed test as a line of
// JSON in the file given as its destination. test.mjs prints them together at the very end, so
// the last lines of a long run (all a CI log may keep) name what failed and why.
export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    // A suite fails because a test in it did: that test is reported on its own.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    yield `${JSON.stringify({ name, file: file ?? null, error: message.slice(0, 1500) })}\n`;
  }
}
