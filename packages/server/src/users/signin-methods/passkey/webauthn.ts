/**
 * @simplewebauthn/server, loaded on the first passkey operation rather than at every start: about
 * 150 modules and half a second of CPU that every server start, test file and `roost` command
 * would otherwise pay (CONTRIBUTING.md, where the test time goes).
 */
let loading: Promise<typeof import('@simplewebauthn/server')> | null = null;

export const webauthn = () => {
  loading ??= import('@simplewebauthn/server');
  return loading;
};
