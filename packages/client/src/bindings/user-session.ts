import { isRoostError, type RoostError } from '../errors.js';
import type { Users } from '../users.js';
import type { Identity } from '../users-types.js';
import { Latest, Observable } from './observable.js';

export interface UserState {
  /** The signed-in user, or `null` when nobody is (or before the first answer). */
  user: Identity | null;
  /** True until the first answer, and while a sign-in or sign-out runs. */
  loading: boolean;
  /** The last failure (a wrong password, say); `null` after a success. */
  error: RoostError | null;
}

/**
 * The signed-in user of one `users` connector, shared by every view that asks for it: a
 * sign-in in one component shows in all. Sign-in is the browser's way, with the `auth` cookie
 * (`users.signin`); in token mode call `users.token()` and then {@link refresh}. Actions never
 * reject: a failure lands in `error`.
 */
export class UserSession {
  readonly state = new Observable<UserState>({ user: null, loading: true, error: null });
  readonly #latest = new Latest();
  #started = false;

  constructor(readonly users: Users) {}

  /** Ask the server once, for the first view that shows the user. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.refresh();
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

  /** Sign in with the cookie; resolves `true` when it worked. */
  readonly signin = async (identity: string, password: string): Promise<boolean> => {
    this.state.set({ loading: true });
    try {
      await this.users.signin(identity, password);
    } catch (error) {
      this.state.set({ loading: false, error: error as RoostError });
      return false;
    }
    await this.refresh();
    return this.state.get().user !== null;
  };

  /** Sign out (the server revokes the token and clears the cookie). */
  readonly signout = async (): Promise<void> => {
    this.state.set({ loading: true });
    try {
      await this.users.signout();
      this.#latest.abort();
      this.state.set({ user: null, loading: false, error: null });
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
