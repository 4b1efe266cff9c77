/**
 * The root of the checkout the tests are of. scripts/test.mjs runs the test files from a compiled
 * copy of the packages (scripts/test-tree.mjs) and names the checkout in ROOST_TEST_CHECKOUT: what
 * only the checkout has (git's list of files, a workspace to `npm pack`) is found there. A test
 * file run by itself (`node --import tsx --test`) is in the checkout: four folders up from here.
 */
export const checkoutRoot = process.env.ROOST_TEST_CHECKOUT ?? new URL('../../../../', import.meta.url).pathname;
