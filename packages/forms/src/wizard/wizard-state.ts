/* Where a wizard keeps the answers of its steps between requests (wizard/wizard-form.ts): signed
   in a hidden field of the page, or in the app's session through a small store. HMAC-SHA256 from
   node:crypto, as Django's signing does for formtools' cookie storage; a page that comes back with
   another state than the one the form signed is refused (`WizardStateError`). */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** The answers so far: the step shown and each step's data (uploads by their stash token). */
export interface WizardState {
  step: number;
  data: Record<string, Record<string, unknown>>;
}

/** The state the page carried was changed, is from another form, or is no longer known. */
export class WizardStateError extends Error {
  override name = 'WizardStateError';
}

/**
 * Keeps wizard states under a key the page carries (the app's session, Redis, ...): `load` gives
 * the state back, or undefined once unknown; `clear` forgets it when the wizard is done.
 */
export interface WizardStore {
  load(key: string): WizardState | undefined | Promise<WizardState | undefined>;
  save(key: string, state: WizardState): void | Promise<void>;
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
    load: (key) => session[name(key)] as WizardState | undefined,
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

const isState = (v: unknown): v is WizardState =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as WizardState).step) &&
  typeof (v as WizardState).data === 'object' &&
  (v as WizardState).data !== null;

/**
 * States signed with the app's secret for the form `formid`: `<payload>.<signature>`, both
 * base64url. A state signed for another form, or changed in any byte, is refused.
 */
export function signedStates(secret: string, formid: string): StateCodec {
  const sign = (payload: string) => createHmac('sha256', secret).update(`${formid}.${payload}`).digest();
  return {
    write: async (state) => {
      const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
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
      return state;
    },
    done: async () => {},
  };
}

/** States in a store under a random key per wizard run; the page carries the key only. */
export function storedStates(store: WizardStore): StateCodec {
  let key: string | undefined;
  return {
    write: async (state) => {
      key ??= randomUUID();
      await store.save(key, state);
      return key;
    },
    read: async (text) => {
      if (!text) return undefined;
      const state = await store.load(text);
      if (!isState(state)) throw new WizardStateError('The saved steps of this form are no longer known');
      key = text;
      return state;
    },
    // The next run (the form shown again after Finish) gets a key of its own.
    done: async (text) => {
      if (text) await store.clear(text);
      key = undefined;
    },
  };
}
