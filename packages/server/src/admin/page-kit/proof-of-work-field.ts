import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FieldConf, Widget } from '@roost/forms';
import type { Config } from '../../core/config.js';
import type { Caller } from '../../users/index.js';

/**
 * The ALTCHA widget in the forms of the pages whose operation may ask for a proof of work
 * (users/proof-of-work.ts; docs/security.md "Proof of work under attack"): sign-in, sign-up, the
 * reset and sign-in mails, the first administrator's setup. It fetches a challenge from
 * /users/api/challenge as the page loads, solves it in a worker, and puts the solution into the
 * hidden input `altcha` of the form, which http/auth.ts `withClient` hands the operation. The
 * widget, its stylesheet and its PBKDF2 worker are served by Roost from the `altcha` package
 * (the build for strict CSPs: no inline styles, workers from our own origin), so the pages'
 * Content-Security-Policy (http/security-headers.ts) stays as it is and nothing comes from a
 * third party. Without JavaScript the form posts no proof: refused only while one is asked for.
 */

/** The files the widget needs, by their path under `/static/` (admin/index.ts serves them). */
export const PROOF_OF_WORK_ASSETS: ReadonlyArray<{ name: string; type: string; body: () => string }> = [
  { name: 'altcha.js', type: 'text/javascript', body: once(() => packageFile('altcha/external')) },
  { name: 'altcha.css', type: 'text/css', body: once(() => packageFile('altcha/altcha.css')) },
  { name: 'altcha-pbkdf2.js', type: 'text/javascript', body: once(() => packageFile('altcha/workers/pbkdf2')) },
  // The external build registers no algorithm: the one Roost's challenges use, in a worker of this origin.
  {
    name: 'roost-altcha.js',
    type: 'text/javascript',
    body: () =>
      "import '/static/altcha.js';\n" +
      "globalThis.$altcha.algorithms.set('PBKDF2/SHA-256', () => new Worker('/static/altcha-pbkdf2.js'));\n",
  },
];

const WIDGET: Widget = {
  hidden: true,
  read: (field, values) => {
    const value = values[field.id];
    return typeof value === 'string' ? value : undefined;
  },
  render: (input) =>
    '<link rel="stylesheet" href="/static/altcha.css">' +
    '<script type="module" src="/static/roost-altcha.js"></script>' +
    `<altcha-widget id="${input.oid}" name="${input.field.id}" challenge="/users/api/challenge" auto="onload"` +
    ' display="standard"></altcha-widget>',
};

/** The field to add to such a form: none while `users.proofOfWork` is off. */
export function proofOfWorkFields(config: Config): FieldConf[] {
  if (config.users.proofOfWork.mode === 'off') return [];
  return [{ id: 'altcha', widget: WIDGET }];
}

/**
 * The caller with the proof the form's widget posted: the pages' forms are multipart, which
 * Fastify leaves to the page to read, so `withClient` (http/auth.ts) cannot find it in the body.
 */
export function withPageProof<C extends Caller>(caller: C, values: Readonly<Record<string, unknown>>): C {
  const proof = values.altcha;
  return typeof proof === 'string' && proof !== '' ? { ...caller, proof } : caller;
}

/** The form's values without the proof (the operation's input takes none; the caller carries it). */
export function withoutProof<T extends Record<string, unknown>>(values: T): Omit<T, 'altcha'> {
  const { altcha: _proof, ...rest } = values;
  return rest;
}

function packageFile(specifier: string): string {
  return readFileSync(fileURLToPath(import.meta.resolve(specifier)), 'utf8');
}

function once(read: () => string): () => string {
  let text: string | undefined;
  return () => {
    text ??= read();
    return text;
  };
}
