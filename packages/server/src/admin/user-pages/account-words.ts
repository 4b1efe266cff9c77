import type { PageDeps } from '../index.js';

/** Words for the user service's field reasons on the public pages, with the configured limits. */
export function accountWords(deps: PageDeps) {
  const { nameMinLength, passwordMinLength } = deps.config.users;
  const words: Record<string, string> = {
    'name:invalid': 'Only letters, digits, ".", "_" and "-".',
    'name:too short': `At least ${nameMinLength} characters.`,
    'name:exists': 'This name is taken; choose another.',
    'email:exists': 'An account with this email exists already.',
    'password:too short': `At least ${passwordMinLength} characters.`,
    'newpassword:too short': `At least ${passwordMinLength} characters.`,
    'token:invalid': 'The code is unknown, used or expired.',
    'token:too long': 'This is not a code we sent.',
  };
  return (field: string, reason: string): string | undefined => words[`${field}:${reason}`];
}
