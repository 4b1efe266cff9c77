import type { RequestCaller } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';

/**
 * The pages' part of a sign-in method (users/signin-method.ts has its domain part, and
 * http/protocol/signin-methods/ its protocol table): its section of the account page with the
 * form posts it answers there, its part of the sign-in page, and the scripts it serves.
 */
export interface MethodPage {
  /** Its section of `/users/account` (user-pages/account-page.ts). */
  accountSection(users: UserService, caller: RequestCaller, page: AccountPagePart): Promise<string>;
  /** Runs a post of its own section's forms: the message to show then, or null when the post is not one of them. */
  accountAction(users: UserService, caller: RequestCaller, body: Record<string, unknown>): Promise<string | null>;
  /** Its part of the public sign-in page (pages/signin-pages.ts): `next` is where a sign-in goes then. */
  signinPart(next: string): string;
  /** Scripts its parts load, by their path under `/static/` (registered by admin/index.ts). */
  scripts: Readonly<Record<string, string>>;
}

/** What the account page hands a method's section. */
interface AccountPagePart {
  /** The page's own address, where its forms post. */
  path: string;
  csrf: string;
  /** The password field that a change of how the account signs in asks for again. */
  proofInput: string;
}
