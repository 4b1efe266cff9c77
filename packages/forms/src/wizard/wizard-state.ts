/* Where a wizard keeps the answers of its steps between requests (wizard/wizard-form.ts): signed
   in a hidden field of the page, or in the app's session through a small store. HMAC-SHA256 from
   node:crypto, as Django's signing does for formtools' cookie storage; a page that comes back with
   another state than the one the form signed is refused (`WizardStateError`). Each state kept
   carries the time it was written, so one older than the wizard's maximum age is refused too
   (`WizardStateExpiredError`), as Django's `signing.loads(max_age=…)` refuses an old signature. */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** The answers so far: the step shown and each step's data (uploads by their stash token). */
export interface WizardState {
  step: number;
  data: Record<string, Record<string, unknown>>;
}

/** A state as it is kept: the answers and when they were written (ms since 1970), which the maximum age counts from. */
export interface KeptWizardState extends WizardState {
  issued: number;
}

/** The state the page carried was changed, is from another form, or is no longer known. */
export class WizardStateError extends Error {
  override name = 'WizardStateError';
}

/** The state the page carried is older than the wizard's maximum age (the user left the form too long). */
export class WizardStateExpiredError extends WizardStateError {
  override name = 'WizardStateExpiredError';
}

/**
 * Keeps wizard states under a key the page carries (the app's session, Redis, ...): `load` gives
 * the state back, or undefined once unknown; `clear` forgets it when the wizard is done.
 */
export interface WizardStore {
  load(key: string): KeptWizardState | undefined | Promise<KeptWizardState | undefined>;
  save(key: string, state: KeptWizardState): void | Promise<void>;
  clear(key: string): void | Promise<void>;
}

/**
 * A store in an object the app keeps per user, its session: each wizard's state under
 * `roost-wizard:<key>`.
 *
 * @example
 * const form = new WizardForm({ request, fields, subsets, steps, store: sessionWizardStore(req.session) });
 */
export function sessionWizardStore(session: Record<string, unknown>): WizardStore {
  const name = (key: string) => `roost-wizard:${key}`;
  return {
    load: (key) => session[name(key)] as KeptWizardState | undefined,
    save: (key, state) => {
      session[name(key)] = state;
    },
    clear: (key) => {
      delete session[name(key)];
    },
  };
}

/** Turns a state into the text of the page's hidden field and back. */
export interface StateCodec {
  write(state: WizardState): Promise<string>;
  /** The state of a hidden field's text; undefined when there is none, `WizardStateError` when refused. */
  read(text: string | undefined): Promise<WizardState | undefined>;
  /** Forgets a state once the wizard is done (a store's entry; nothing for signed states). */
  done(text: string | undefined): Promise<void>;
}

const isState = (v: unknown): v is KeptWizardState =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as KeptWizardState).step) &&
  typeof (v as KeptWizardState).data === 'object' &&
  (v as KeptWizardState).data !== null &&
  Number.isFinite((v as KeptWizardState).issued);

/** The answers of a kept state, once its age is checked: older than `maxAgeMs` is refused. */
function fresh({ issued, ...state }: KeptWizardState, maxAgeMs: number): WizardState {
  if (Date.now() - issued > maxAgeMs) throw new WizardStateExpiredError('The saved steps of this form are too old');
  return state;
}

/**
 * States signed with the app's secret for the form `formid`: `<payload>.<signature>`, both
 * base64url, the payload holding the time of writing. A state signed for another form, changed
 * in any byte, or written more than `maxAgeMs` ago is refused.
 */
export function signedStates(secret: string, formid: string, maxAgeMs: number): StateCodec {
  const sign = (payload: string) => createHmac('sha256', secret).update(`${formid}.${payload}`).digest();
  return {
    write: async (state) => {
      const kept: KeptWizardState = { ...state, issued: Date.now() };
      const payload = Buffer.from(JSON.stringify(kept)).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    read: async (text) => {
      if (!text) return undefined;
      const [payload = '', signature = ''] = text.split('.');
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new WizardStateError('The saved steps of this form were changed');
      const state: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!isState(state)) throw new WizardStateError('The saved steps of this form were changed');
      return fresh(state, maxAgeMs);
    },
    done: async () => {},
  };
}

/**
 * States in a store under a random key per wizard run. The page carries `<key>.<step>`: the key,
 * and the step it shows, which wins over the store's (a page the browser's history returns to
 * goes on from its own step, as Django formtools' management form carries its current step).
 * A state saved more than `maxAgeMs` ago is refused and forgotten.
 */
export function storedStates(store: WizardStore, maxAgeMs: number): StateCodec {
  let key: string | undefined;
  return {
    write: async (state) => {
      key ??= randomUUID();
      await store.save(key, { ...state, issued: Date.now() });
      return `${key}.${state.step}`;
    },
    read: async (text) => {
      if (!text) return undefined;
      const [given = '', step] = text.split('.');
      const kept = await store.load(given);
      if (!isState(kept)) throw new WizardStateError('The saved steps of this form are no longer known');
      if (Date.now() - kept.issued > maxAgeMs) await store.clear(given);
      const state = fresh(kept, maxAgeMs);
      key = given;
      const shown = Number(step);
      return Number.isInteger(shown) && shown >= 0 ? { ...state, step: shown } : state;
    },
    // The next run (the form shown again after Finish) gets a key of its own.
    done: async (text) => {
      const given = text?.split('.')[0];
      if (given) await store.clear(given);
      key = undefined;
    },
  };
}
