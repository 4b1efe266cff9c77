import { isRoostError, type RoostError } from '../errors.js';
import { secondFactorChallenge, type Users } from '../users.js';
import type { Identity, SecondFactorChallenge, SecondFactorProof, TotpSetup } from '../users-types.js';
import { Latest, Observable } from './observable.js';

export interface UserState {
  /** The signed-in user, or `null` when nobody is (or before the first answer). */
  user: Identity | null;
  /** True until the first answer, and while a sign-in or sign-out runs. */
  loading: boolean;
  /** The last failure (a wrong password, say); `null` after a success. */
  error: RoostError | null;
  /**
   * After the right password of an account with a second factor: the challenge that
   * {@link UserSession.secondStep} completes (`enrol`: set the authenticator up first, with
   * {@link UserSession.enrol}); `null` otherwise.
   */
  challenge: SecondFactorChallenge | null;
  /** The new authenticator of an `enrol` challenge: its QR code and key, to show. */
  setup: TotpSetup | null;
  /** The recovery codes of a sign-in that set an authenticator up: show them once. */
  recoveryCodes: string[] | null;
}

const CLEAR = { challenge: null, setup: null, recoveryCodes: null } as const;

/**
 * The signed-in user of one `users` connector, shared by every view that asks for it: a
 * sign-in in one component shows in all. Sign-in is the browser's way, with the `auth` cookie
 * (`users.signin`); in token mode call `users.token()` and then {@link refresh}. Actions never
 * reject: a failure lands in `error`.
 */
export class UserSession {
  readonly state = new Observable<UserState>({ user: null, loading: true, error: null, ...CLEAR });
  readonly #latest = new Latest();
  #started = false;

  constructor(readonly users: Users) {}

  /** Ask the server once, for the first view that shows the user (ending a provider sign-in first). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#backFromProvider().then(async (failure) => {
      await this.refresh();
      if (failure) this.state.set(failure);
    });
  }

  /**
   * Sign in with provider `id` (one of `users.providers()`): the browser leaves for the provider
   * and comes back to this page. On Roost's own origin the address is a path and Roost sets the
   * cookie itself; elsewhere (an address of `users.providerRedirects`) it brings a one-time grant
   * that {@link start} trades for a token.
   */
  readonly signinWithProvider = (id: string): void => {
    const here = globalThis.location;
    const roost = new URL(this.users.providerSigninUrl(id, '/'), here.href).origin;
    this.users.signinWithProvider(id, roost === here.origin ? here.pathname + here.search + here.hash : here.href);
  };

  /**
   * This page's address after a provider sign-in: the grant traded for a token, the parameters
   * taken off the address; answers what to show when it failed (or asks for a second factor).
   */
  async #backFromProvider(): Promise<Partial<UserState> | null> {
    const here = globalThis.location;
    if (!here || !/[?&]roost_(signin|error|pending)=/.test(here.search)) return null;
    let failure: Partial<UserState> | null = null;
    try {
      await this.users.completeProviderSignin(here.href);
    } catch (error) {
      const challenge = secondFactorChallenge(error);
      failure = challenge ? { challenge } : { error: error as RoostError };
    }
    const clean = new URL(here.href);
    for (const name of ['roost_signin', 'roost_error', 'roost_pending']) clean.searchParams.delete(name);
    globalThis.history?.replaceState(globalThis.history.state, '', clean.href);
    return failure;
  }

  /** Ask the server who is signed in (401 means nobody, not a failure). */
  readonly refresh = async (): Promise<void> => {
    const signal = this.#latest.next();
    try {
      const user = await this.users.identity({ signal });
      this.state.set({ user, loading: false, error: null });
    } catch (error) {
      if (!isRoostError(error) || error.code === 'aborted') return;
      this.state.set(error.status === 401 ? { user: null, loading: false, error: null } : { loading: false, error });
    }
  };

  /**
   * Sign in with the cookie; resolves `true` when it worked. For an account with a second
   * factor it resolves `false` with `challenge` set: {@link secondStep} follows.
   */
  readonly signin = (identity: string, password: string): Promise<boolean> =>
    this.#firstStep(() => this.users.signin(identity, password));

  /**
   * Sign in with a passkey (cookie mode), no name typed; resolves `true` when signed in. An
   * account with a second factor whose authenticator did not verify the user gets `challenge`.
   */
  readonly signinWithPasskey = (): Promise<boolean> =>
    this.#firstStep(() => this.users.signinWithPasskey({ cookie: true }));

  /** For an `enrol` challenge: a new authenticator, in `setup` (a new one on each call). */
  readonly enrol = async (): Promise<void> => {
    const { challenge } = this.state.get();
    if (!challenge) return;
    try {
      this.state.set({ setup: await this.users.totpEnrol(challenge.challenge), error: null });
    } catch (error) {
      this.state.set({ error: error as RoostError });
    }
  };

  /**
   * The second step: the app's code (`{ code }`) or a recovery code (`{ recoveryCode }`).
   * Resolves `true` when signed in; a wrong code keeps the challenge for another try, a
   * challenge that ran out clears it (sign in again).
   */
  readonly secondStep = (proof: SecondFactorProof): Promise<boolean> =>
    this.#secondStepBy((challenge) => this.users.signin2(challenge, proof));

  /** The second step with a passkey instead of a code (when `challenge.methods` has `passkey`). */
  readonly secondStepWithPasskey = (): Promise<boolean> =>
    this.#secondStepBy((challenge) => this.users.passkeySecondStep(challenge, { cookie: true }));

  /** A first step (password or passkey): signed in, or the challenge of a second factor, or the failure. */
  async #firstStep(run: () => Promise<unknown>): Promise<boolean> {
    this.state.set({ loading: true, ...CLEAR });
    try {
      await run();
    } catch (error) {
      const challenge = secondFactorChallenge(error);
      this.state.set(
        challenge ? { loading: false, error: null, challenge } : { loading: false, error: error as RoostError },
      );
      return false;
    }
    await this.refresh();
    return this.state.get().user !== null;
  }

  /** A second step by `run` with the pending challenge; a challenge that ran out is cleared. */
  async #secondStepBy(run: (challenge: string) => Promise<{ recoveryCodes?: string[] }>): Promise<boolean> {
    const { challenge } = this.state.get();
    if (!challenge) return false;
    this.state.set({ loading: true });
    try {
      const answer = await run(challenge.challenge);
      this.state.set({ ...CLEAR, recoveryCodes: answer.recoveryCodes ?? null });
    } catch (error) {
      const gone = isRoostError(error) && error.code === 'invalid_token';
      this.state.set({ loading: false, error: error as RoostError, ...(gone ? CLEAR : {}) });
      return false;
    }
    await this.refresh();
    return this.state.get().user !== null;
  }

  /** Sign out (the server revokes the token and clears the cookie). */
  readonly signout = async (): Promise<void> => {
    this.state.set({ loading: true });
    try {
      await this.users.signout();
      this.#latest.abort();
      this.state.set({ user: null, loading: false, error: null, ...CLEAR });
    } catch (error) {
      this.state.set({ loading: false, error: error as RoostError });
    }
  };
}

const sessions = new WeakMap<Users, UserSession>();

/** The one session of a `users` connector. */
export function sessionOf(users: Users): UserSession {
  let session = sessions.get(users);
  if (!session) {
    session = new UserSession(users);
    sessions.set(users, session);
  }
  return session;
}
