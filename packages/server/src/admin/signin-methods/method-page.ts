import type { FormRequest, FormResponse } from '@roost/forms';
import type { RequestCaller } from '../../http/auth.js';
import type { UserService } from '../../users/index.js';

/**
 * The pages' part of a sign-in method (users/signin-method.ts has its domain part, and
 * http/protocol/signin-methods/ its protocol table): its section of the account page with the
 * form posts it answers there, its field in the sign-in's second step, its part of the sign-in
 * page, and the scripts it serves. A method without a part of a page leaves that member out.
 */
export interface MethodPage {
  /**
   * Its section of `/users/account` (user-pages/account-page.ts), on every showing and post: a
   * method whose forms keep state from one action to the next (a secret being set up, codes to
   * show once) processes them here, and may answer the post itself (`response`).
   */
  accountSection?(users: UserService, caller: RequestCaller, page: AccountPagePart): Promise<AccountSection>;
  /** Runs a post of its own plain forms: the message to flash then, or null when the post is not one of them. */
  accountAction?(users: UserService, caller: RequestCaller, body: Record<string, unknown>): Promise<string | null>;
  /** Its answer in the code field of the sign-in's second step (pages/second-step-form.ts). */
  secondStep?: SecondStepPart;
  /** Its part of the public sign-in page (pages/signin-pages.ts): `next` is where a sign-in goes then. */
  signinPart?(next: string): string;
  /** Scripts its parts load, by their path under `/static/` (registered by admin/index.ts). */
  scripts?: Readonly<Record<string, string>>;
}

/** What the account page hands a method's section. */
export interface AccountPagePart {
  /** The page's own address, where its forms post. */
  path: string;
  csrf: string;
  /** The password field that a change of how the account signs in asks for again. */
  proofInput: string;
  /** The page's request, for the method's own forms (page-kit/page-form.ts). */
  form: FormRequest;
}

/** A method's section of the account page, or its own answer to the post. */
export interface AccountSection {
  html: string;
  /** One of its forms was refused: the page answers 422. */
  failed?: boolean;
  /** Its form answered the post (a redirect after a change): the page sends it as it is. */
  response?: FormResponse;
}

/**
 * A method's share of the second step's one code field: the methods whose answer is typed there
 * (users/signin-method.ts `secondStepInput`), asked in the order of the list.
 */
interface SecondStepPart {
  /** The id of its method (users/signin-method.ts): asked only when the challenge lists it. */
  method: string;
  /**
   * A method whose typed answer has another's shape (six digits) is asked on the page only when
   * the challenge does not list that other one, which is asked instead (the API takes either).
   */
  unless?: string;
  /**
   * What to do and show when the form first appears for a challenge that asks for it (a code
   * sent by SMS): html before the form.
   */
  prepare?(users: UserService, caller: RequestCaller, challenge: string): Promise<string>;
  /** Its words in the field's name ('Code from the app'), joined by ', or '. */
  fieldName: string;
  /** What to enter, in the form's first sentence ('the code your authenticator app shows'). */
  prompt: string;
  /** The second step's input with the typed answer when it has this method's shape (`{ code }`), else null. */
  proof(typed: string): Record<string, string> | null;
  /**
   * For a factor an account can be made to set up during the sign-in (an `enrol` challenge,
   * users/signin-challenge.ts): the new secret to show with the form, made for the challenge.
   */
  enrolment?(users: UserService, caller: RequestCaller, challenge: string): Promise<string>;
}
